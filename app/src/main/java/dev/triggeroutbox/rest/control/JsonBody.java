package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Reads a request body field by field with the client's words in every error: which field, what
 * was expected. Collects all errors of a body and reports them together; fields the API does not
 * know (server-owned ones like {@code status} or {@code attemptCount} included) are refused.
 */
public final class JsonBody {

    private final JsonObject json;
    private final String prefix;
    private final List<OutboxRefusedException.FieldError> errors;

    private JsonBody(JsonObject json, String prefix, List<OutboxRefusedException.FieldError> errors) {
        this.json = json;
        this.prefix = prefix;
        this.errors = errors;
    }

    /**
     * For a call that takes no fields: the body must be absent, blank or {@code {}}; anything else is refused with
     * {@code why} (400, field {@code body}).
     */
    public static void requireEmpty(String body, String why) {
        if (body != null && !body.isBlank() && !body.replaceAll("\\s", "").equals("{}")) {
            throw OutboxRefusedException.invalid("body", why);
        }
    }

    /** Starts reading {@code body}; refuses a missing body or one that is not a JSON object. */
    public static JsonBody of(JsonValue body, Set<String> allowed) {
        if (body == null || body.getValueType() != JsonValue.ValueType.OBJECT) {
            throw OutboxRefusedException.invalid("(body)", "must be a JSON object");
        }
        JsonBody read = new JsonBody(body.asJsonObject(), "", new ArrayList<>());
        read.onlyKnown(allowed);
        return read;
    }

    /** A nested object field, read with the same error list. Null when absent (and reported when required). */
    public JsonBody object(String name, boolean required, Set<String> allowed) {
        JsonValue v = value(name, required);
        if (v == null) {
            return null;
        }
        if (v.getValueType() != JsonValue.ValueType.OBJECT) {
            error(name, "must be an object");
            return null;
        }
        JsonBody nested = new JsonBody(v.asJsonObject(), prefix + name + ".", errors);
        nested.onlyKnown(allowed);
        return nested;
    }

    /** An array of strings; null when absent (and reported when required). */
    public List<String> strings(String name, boolean required) {
        JsonValue v = value(name, required);
        if (v == null) {
            return null;
        }
        if (v.getValueType() != JsonValue.ValueType.ARRAY
                || !v.asJsonArray().stream().allMatch(e -> e.getValueType() == JsonValue.ValueType.STRING)) {
            error(name, "must be an array of strings");
            return null;
        }
        List<String> texts = v.asJsonArray().getValuesAs(JsonString::getString);
        String problem = texts.stream().map(StorableJson::textProblem).filter(p -> p != null).findFirst().orElse(null);
        if (problem != null) {
            error(name, problem);
            return null;
        }
        return texts;
    }

    /** An array of objects, each read with the same error list (fields named {@code name[i].field}). */
    public List<JsonBody> objects(String name, boolean required, Set<String> allowed) {
        JsonValue v = value(name, required);
        if (v == null) {
            return null;
        }
        if (v.getValueType() != JsonValue.ValueType.ARRAY
                || !v.asJsonArray().stream().allMatch(e -> e.getValueType() == JsonValue.ValueType.OBJECT)) {
            error(name, "must be an array of objects");
            return null;
        }
        List<JsonBody> out = new ArrayList<>();
        for (int i = 0; i < v.asJsonArray().size(); i++) {
            JsonBody item = new JsonBody(v.asJsonArray().getJsonObject(i), prefix + name + "[" + i + "].", errors);
            item.onlyKnown(allowed);
            out.add(item);
        }
        return out;
    }

    private void onlyKnown(Set<String> allowed) {
        if (allowed.containsAll(json.keySet())) {
            return;
        }
        json.keySet().stream().filter(k -> !allowed.contains(k)).sorted()
                .forEach(k -> error(k, "is not a field of this request (fields: "
                        + String.join(", ", new java.util.TreeSet<>(allowed)) + ")"));
    }

    public String string(String name, boolean required) {
        JsonValue v = value(name, required);
        if (v == null) {
            return null;
        }
        if (v.getValueType() != JsonValue.ValueType.STRING) {
            error(name, "must be a string");
            return null;
        }
        String text = ((JsonString) v).getString();
        String problem = StorableJson.textProblem(text);
        if (problem != null) {
            error(name, problem);
            return null;
        }
        return text;
    }

    public UUID uuid(String name, boolean required) {
        return parsed(name, required, UUID::fromString, "must be a UUID");
    }

    public OffsetDateTime time(String name, boolean required) {
        // in UTC: PostgreSQL holds offsets within ±15:59 only, RFC 3339 and Java up to ±18:00
        return parsed(name, required, t -> OffsetDateTime.parse(t).withOffsetSameInstant(ZoneOffset.UTC),
                "must be an RFC 3339 time, e.g. 2026-01-31T12:00:00Z");
    }

    /** A string field that must parse; {@code parse} may throw IllegalArgumentException or DateTimeException. */
    public <T> T parsed(String name, boolean required, Function<String, T> parse, String expected) {
        String s = string(name, required);
        if (s == null) {
            return null;
        }
        try {
            return parse.apply(s);
        } catch (IllegalArgumentException | DateTimeException e) {
            error(name, expected);
            return null;
        }
    }

    public Integer integer(String name, boolean required, int min, int max) {
        JsonValue v = value(name, required);
        if (v == null) {
            return null;
        }
        if (v.getValueType() != JsonValue.ValueType.NUMBER || !((JsonNumber) v).isIntegral()) {
            error(name, "must be a whole number");
            return null;
        }
        // compared as the number sent: longValue() would wrap 18446744073709551619 around to 3
        BigDecimal n = ((JsonNumber) v).bigDecimalValue();
        if (n.compareTo(BigDecimal.valueOf(min)) < 0 || n.compareTo(BigDecimal.valueOf(max)) > 0) {
            error(name, "must be between " + min + " and " + max);
            return null;
        }
        return n.intValueExact();
    }

    public Boolean bool(String name, boolean required) {
        JsonValue v = value(name, required);
        if (v == null) {
            return null;
        }
        if (v != JsonValue.TRUE && v != JsonValue.FALSE) {
            error(name, "must be true or false");
            return null;
        }
        return v == JsonValue.TRUE;
    }

    /** Any JSON value (a payload); JSON null counts as absent. */
    public JsonValue any(String name, boolean required) {
        return value(name, required);
    }

    private JsonValue value(String name, boolean required) {
        JsonValue v = json.get(name);
        if (v == null || v == JsonValue.NULL) {
            if (required) {
                error(name, "is required");
            }
            return null;
        }
        return v;
    }

    /** Whether the field is there (and not JSON null). */
    public boolean present(String name) {
        JsonValue v = json.get(name);
        return v != null && v != JsonValue.NULL;
    }

    public void error(String name, String message) {
        errors.add(new OutboxRefusedException.FieldError(prefix + name, message));
    }

    /** Throws the collected errors as one 400 problem, if there are any. */
    public void validate() {
        if (!errors.isEmpty()) {
            throw OutboxRefusedException.invalid(errors);
        }
    }
}
