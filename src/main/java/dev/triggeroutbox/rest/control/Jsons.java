package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import java.io.InputStream;
import java.io.StringReader;

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

    /** A reader of a byte stream (UTF-8, or what its first bytes say). */
    public static JsonReader reader(InputStream bytes) {
        return PROVIDER.createReader(bytes);
    }
}
