package dev.triggeroutbox.console.control;

import jakarta.json.JsonObjectBuilder;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** The admin API's JSON conventions: RFC 3339 times in UTC, absent values as explicit nulls. */
public final class ConsoleJson {

    private ConsoleJson() {
    }

    public static String utc(OffsetDateTime t) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }

    public static JsonObjectBuilder add(JsonObjectBuilder json, String name, UUID value) {
        return value == null ? json.addNull(name) : json.add(name, value.toString());
    }

    public static JsonObjectBuilder add(JsonObjectBuilder json, String name, String value) {
        return value == null ? json.addNull(name) : json.add(name, value);
    }

    public static JsonObjectBuilder add(JsonObjectBuilder json, String name, Integer value) {
        return value == null ? json.addNull(name) : json.add(name, value.intValue());
    }

    public static JsonObjectBuilder add(JsonObjectBuilder json, String name, OffsetDateTime value) {
        return value == null ? json.addNull(name) : json.add(name, utc(value));
    }
}
