package dev.triggeroutbox.pubsub.control;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.rest.control.StorableJson;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/**
 * The event a broker message becomes: {@code {topic, messageId, correlationId?, timestamp?, type?,
 * properties, body, bodyType}}. A text body is JSON when it parses as JSON, else the text; a bytes
 * body is base64; a map body an object. Object messages are never deserialized (their content could
 * instantiate any class), stream messages are not read: both arrive with a null body and their
 * type. The payload always fits the outbox: NUL characters (PostgreSQL cannot store them) and lone
 * surrogates become U+FFFD, a JSON body {@code jsonb} cannot hold (numbers past its range) stays
 * text, and a body too large for {@code outbox.max-payload-bytes} (counted as stored) is left out
 * with its size, so a message never blocks its subscription.
 */
public final class PubSubPayloads {

    /** A message as received, its body already taken out of its JMS type. */
    public record Received(String topic, String messageId, String correlationId, long timestamp, String type,
            Map<String, Object> properties, String bodyType, Object body) {
    }

    private PubSubPayloads() {
    }

    public static String payload(Received m, int maxPayloadBytes) {
        String full = envelope(m, true).add("body", body(m)).build().toString();
        if (fits(full, maxPayloadBytes)) {
            return full;
        }
        JsonObjectBuilder withoutBody = envelope(m, true).add("body", JsonValue.NULL)
                .add("bodyOmitted",
                        "the body (" + bytes(body(m).toString()) + " bytes as JSON) exceeds outbox.max-payload-bytes");
        String smaller = withoutBody.build().toString();
        if (fits(smaller, maxPayloadBytes)) {
            return smaller;
        }
        return envelope(m, false).add("body", JsonValue.NULL)
                .add("bodyOmitted", "the message exceeds outbox.max-payload-bytes").build().toString();
    }

    private static boolean fits(String json, int max) {
        return StorableJson.check(json).storedBytes() <= max;
    }

    private static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static JsonObjectBuilder envelope(Received m, boolean withProperties) {
        JsonObjectBuilder b = Jsons.object().add("topic", m.topic()).add("bodyType", m.bodyType());
        optional(b, "messageId", m.messageId());
        optional(b, "correlationId", m.correlationId());
        optional(b, "type", m.type());
        if (m.timestamp() > 0) {
            b.add("timestamp", Instant.ofEpochMilli(m.timestamp()).toString());
        }
        JsonObjectBuilder props = Jsons.object();
        if (withProperties) {
            new TreeMap<>(m.properties()).forEach((k, v) -> props.add(clean(k), value(v)));
        }
        return b.add("properties", props);
    }

    private static void optional(JsonObjectBuilder b, String name, String value) {
        if (value != null) {
            b.add(name, clean(value));
        }
    }

    private static JsonValue body(Received m) {
        Object body = m.body();
        if (body instanceof String text) {
            return text(clean(text));
        }
        if (body instanceof byte[] bytes) {
            return Jsons.value(Base64.getEncoder().encodeToString(bytes));
        }
        if (body instanceof Map<?, ?> map) {
            JsonObjectBuilder o = Jsons.object();
            new TreeMap<>(map).forEach((k, v) -> o.add(clean(String.valueOf(k)), value(v)));
            return o.build();
        }
        return JsonValue.NULL;
    }

    /**
     * JSON when the text is JSON that {@code jsonb} can store as it is (else its numbers or strings
     * would fail the whole batch's commit, every time the broker redelivers it), else the text.
     */
    private static JsonValue text(String text) {
        String t = text.strip();
        if (!t.isEmpty() && "{[\"-0123456789tfn".indexOf(t.charAt(0)) >= 0 && StorableJson.check(t).storable()) {
            try (JsonParser parser = Jsons.parser(t)) {
                parser.next();
                return parser.getValue();
            }
        }
        return Jsons.value(text);
    }

    private static JsonValue value(Object v) {
        if (v == null) {
            return JsonValue.NULL;
        }
        if (v instanceof Boolean b) {
            return b ? JsonValue.TRUE : JsonValue.FALSE;
        }
        if (v instanceof Float || v instanceof Double) {
            double d = ((Number) v).doubleValue();
            return Double.isFinite(d) ? Jsons.value(d) : Jsons.value(String.valueOf(d));
        }
        if (v instanceof Number n) {
            return Jsons.value(n.longValue());
        }
        if (v instanceof byte[] bytes) {
            return Jsons.value(Base64.getEncoder().encodeToString(bytes));
        }
        return Jsons.value(clean(String.valueOf(v)));
    }

    /** Text as it can be stored: NUL and lone surrogates become U+FFFD. */
    private static String clean(String s) {
        if (StorableJson.textProblem(s) == null) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                out.append(c).append(s.charAt(++i));
            } else {
                out.append(c == '\0' || Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return out.toString();
    }
}
