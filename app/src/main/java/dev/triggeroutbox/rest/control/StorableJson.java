package dev.triggeroutbox.rest.control;

import jakarta.json.stream.JsonParser;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Whether JSON text can be stored in a {@code jsonb} column as it was sent, and how large it is
 * once stored. JSON allows more than {@code jsonb} holds: numbers beyond PostgreSQL's
 * {@code numeric} range, the NUL character, and lone UTF-16 surrogates (which a UTF-8 connection
 * would turn into {@code ?}). PostgreSQL writes numbers back in full ({@code 1e400} comes back as
 * 401 digits), so the stored size counts them that way: the size limit holds for what is
 * delivered, not only for what was sent.
 */
public final class StorableJson {

    /** PostgreSQL {@code numeric}: at most this many digits before the decimal point. */
    public static final int MAX_INTEGER_DIGITS = 131_072;

    /** PostgreSQL {@code numeric}: at most this many digits after the decimal point. */
    public static final int MAX_FRACTION_DIGITS = 16_383;

    /** The outcome: {@code problem} is null when the text is storable; {@code storedBytes} its size in UTF-8 as stored. */
    public record Check(String problem, long storedBytes) {
        public boolean storable() {
            return problem == null;
        }
    }

    private StorableJson() {
    }

    /** Checks one JSON text (one value, nothing after it). */
    public static Check check(String json) {
        long longer = 0; // how much longer the numbers are once written out in full
        try (JsonParser parser = Jsons.parser(json)) {
            while (parser.hasNext()) {
                JsonParser.Event event = parser.next();
                if (event == JsonParser.Event.KEY_NAME || event == JsonParser.Event.VALUE_STRING) {
                    String problem = textProblem(parser.getString());
                    if (problem != null) {
                        return new Check(problem, 0);
                    }
                } else if (event == JsonParser.Event.VALUE_NUMBER) {
                    String token = parser.getString();
                    BigDecimal n = new BigDecimal(token);
                    String problem = numberProblem(n);
                    if (problem != null) {
                        return new Check(problem, 0);
                    }
                    longer += Math.max(0, writtenOutLength(n) - token.length());
                }
            }
        } catch (RuntimeException notJson) {
            // the parser's JsonException, or BigDecimal's refusal of an exponent past the int range
            return new Check("must be JSON text", 0);
        }
        return new Check(null, json.getBytes(StandardCharsets.UTF_8).length + longer);
    }

    /** Why a string cannot be stored as text (a NUL or a lone surrogate), or null when it can. */
    public static String textProblem(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\0') {
                return "must not contain the NUL character (\\u0000), which the database cannot store";
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "must not contain a lone UTF-16 surrogate (\\u" + Integer.toHexString(c)
                        + "), which is no Unicode character";
            }
        }
        return null;
    }

    /** Why a number does not fit PostgreSQL's {@code numeric}, or null when it does. */
    static String numberProblem(BigDecimal n) {
        if (n.scale() > MAX_FRACTION_DIGITS) {
            return "must not hold a number with more than " + MAX_FRACTION_DIGITS + " digits after the decimal point";
        }
        if ((long) n.precision() - n.scale() > MAX_INTEGER_DIGITS) {
            return "must not hold a number with more than " + MAX_INTEGER_DIGITS + " digits before the decimal point";
        }
        return null;
    }

    /** The length of a number as PostgreSQL writes it: sign, every integer digit, point and fraction digits. */
    static long writtenOutLength(BigDecimal n) {
        long integerDigits = Math.max(1, (long) n.precision() - n.scale());
        long fraction = n.scale() > 0 ? 1 + n.scale() : 0;
        return (n.signum() < 0 ? 1 : 0) + integerDigits + fraction;
    }
}
