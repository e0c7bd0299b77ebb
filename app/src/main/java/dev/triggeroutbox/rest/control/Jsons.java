package dev.triggeroutbox.rest.control;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackReader;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * JSON-P builders from one provider, looked up once. {@code Jsons.object()} looks the
 * provider up anew on every call (a service-loader scan), which showed up in every request's profile.
 */
public final class Jsons {

    private static final JsonProvider PROVIDER = JsonProvider.provider();

    private Jsons() {
    }

    public static JsonObjectBuilder object() {
        return PROVIDER.createObjectBuilder();
    }

    public static JsonArrayBuilder array() {
        return PROVIDER.createArrayBuilder();
    }

    public static JsonString value(String text) {
        return PROVIDER.createValue(text);
    }

    public static JsonNumber value(long number) {
        return PROVIDER.createValue(number);
    }

    public static JsonNumber value(double number) {
        return PROVIDER.createValue(number);
    }

    public static JsonParser parser(String text) {
        return PROVIDER.createParser(new StringReader(text));
    }

    public static JsonReader reader(String text) {
        return PROVIDER.createReader(new StringReader(text));
    }

    public static JsonParser parser(Reader text) {
        return PROVIDER.createParser(text);
    }

    /**
     * The characters of UTF-8 bytes, refusing bytes that are not UTF-8 with a {@link java.nio.charset.CharacterCodingException}
     * (the JDK's own decoding replaces them with U+FFFD), and skipping a leading byte order mark, which RFC 8259
     * lets a parser ignore.
     */
    public static Reader strictUtf8(InputStream bytes) throws IOException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        PushbackReader reader = new PushbackReader(new InputStreamReader(bytes, decoder), 1);
        int first = reader.read();
        if (first >= 0 && first != '\uFEFF') {
            reader.unread(first);
        }
        return reader;
    }
}
