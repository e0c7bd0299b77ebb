package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** The admin API's JSON conventions: RFC 3339 times in UTC, absent values as explicit nulls. */
final class ConsoleJson {

    private ConsoleJson() {
    }

    /** A page of a list: its {@code items}, and {@code nextCursor}, what the next page's {@code ?cursor=} takes (null: the last page). */
    static JsonObject page(JsonArrayBuilder items, Object nextCursor) {
        JsonObjectBuilder json = Jsons.object().add("items", items);
        return (nextCursor == null ? json.addNull("nextCursor") : json.add("nextCursor", nextCursor.toString()))
                .build();
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
