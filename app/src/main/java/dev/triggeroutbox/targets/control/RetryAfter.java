package dev.triggeroutbox.targets.control;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * Reads a {@code Retry-After} header (RFC 9110, section 10.2.3): delay-seconds or an HTTP-date in any of
 * the three formats a recipient must accept. An unreadable value is ignored rather than trusted, and a
 * huge one is bounded here; the retry policy caps it again at its own maximum backoff.
 */
public final class RetryAfter {

    /** The longest wait this reader reports, so the duration always fits in milliseconds. */
    static final Duration LONGEST = Duration.ofDays(365);

    // Sun, 06 Nov 1994 08:49:37 GMT (the preferred IMF-fixdate)
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.RFC_1123_DATE_TIME;
    // Sun Nov  6 08:49:37 1994 (C asctime, always GMT)
    private static final DateTimeFormatter ASCTIME = new DateTimeFormatterBuilder().parseCaseInsensitive()
            .appendPattern("EEE MMM ppd HH:mm:ss uuuu").toFormatter(Locale.ENGLISH);

    private RetryAfter() {
    }

    /** The wait the header asks for, measured from {@code now}; zero for a date in the past; null when absent or unreadable. */
    public static Duration parse(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.trim();
        if (v.matches("\\d+")) {
            // more than 9 digits is beyond LONGEST anyway, and would not fit in a long if long enough
            return v.length() > 9 ? LONGEST : bounded(Duration.ofSeconds(Long.parseLong(v)));
        }
        Instant at = date(v, now);
        if (at == null) {
            return null;
        }
        return at.isBefore(now) ? Duration.ZERO : bounded(Duration.between(now, at));
    }

    private static Duration bounded(Duration d) {
        return d.compareTo(LONGEST) > 0 ? LONGEST : d;
    }

    private static Instant date(String v, Instant now) {
        try {
            return ZonedDateTime.parse(v, IMF_FIXDATE).toInstant();
        } catch (DateTimeParseException e) {
            // try the obsolete formats
        }
        try {
            return LocalDateTime.parse(v, ASCTIME).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            // try RFC 850
        }
        try {
            return LocalDateTime.parse(v, rfc850(now)).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * Sunday, 06-Nov-94 08:49:37 GMT. RFC 9110 reads a two-digit year that looks more than 50 years
     * ahead as the most recent past year with those digits, hence a window around {@code now}.
     */
    private static DateTimeFormatter rfc850(Instant now) {
        int base = now.atZone(ZoneOffset.UTC).getYear() - 49;
        return new DateTimeFormatterBuilder().parseCaseInsensitive()
                .appendPattern("EEEE, dd-MMM-")
                .appendValueReduced(ChronoField.YEAR, 2, 2, base)
                .appendPattern(" HH:mm:ss 'GMT'")
                .toFormatter(Locale.ENGLISH);
    }
}
