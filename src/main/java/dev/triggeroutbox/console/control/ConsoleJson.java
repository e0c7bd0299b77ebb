package dev.triggeroutbox.console.control;

import jakarta.json.JsonObjectBuilder;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** The admin API's JSON conventions: RFC 3339 times in UTC, absent values as explicit nulls. */
final class ConsoleJson {

    private ConsoleJson() {
    }

    static String utc(OffsetDateTime t) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }

    static JsonObjectBuilder add(JsonObjectBuilder json, String name, UUID value) {
        return value == null ? json.addNull(name) : json.add(name, value.toString());
    }

    static JsonObjectBuilder add(JsonObjectBuilder json, String name, String value) {
        return value == null ? json.addNull(name) : json.add(name, value);
    }

    static JsonObjectBuilder add(JsonObjectBuilder json, String name, Integer value) {
        return value == null ? json.addNull(name) : json.add(name, value.intValue());
    }

    static JsonObjectBuilder add(JsonObjectBuilder json, String name, OffsetDateTime value) {
        return value == null ? json.addNull(name) : json.add(name, utc(value));
    }
}
