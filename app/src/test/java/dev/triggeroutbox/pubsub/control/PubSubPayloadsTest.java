package dev.triggeroutbox.pubsub.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import dev.triggeroutbox.rest.control.StorableJson;
import org.junit.jupiter.api.Test;

class PubSubPayloadsTest {

    private static final int LIMIT = 262_144;

    private static PubSubPayloads.Received text(String body, Map<String, Object> properties) {
        return new PubSubPayloads.Received("java:/jms/topic/t", "ID:1", null, 1_700_000_000_000L, null, properties,
                "text", body);
    }

    private static JsonObject parse(String json) {
        return Json.createReader(new StringReader(json)).readObject();
    }

    @Test
    void aJsonTextBodyIsJsonAndEveryThingElseOfTheMessageIsThere() {
        JsonObject p = parse(PubSubPayloads.payload(text(" {\"a\": [1, 2]} ",
                Map.of("s", "x", "i", 3, "b", true, "d", 1.5, "l", 9_000_000_000L)), LIMIT));
        assertEquals(2, p.getJsonObject("body").getJsonArray("a").size());
        assertEquals("ID:1", p.getString("messageId"));
        assertEquals("java:/jms/topic/t", p.getString("topic"));
        assertEquals("2023-11-14T22:13:20Z", p.getString("timestamp"));
        assertEquals("text", p.getString("bodyType"));
        JsonObject props = p.getJsonObject("properties");
        assertEquals("x", props.getString("s"));
        assertEquals(3, props.getInt("i"));
        assertTrue(props.getBoolean("b"));
        assertEquals(1.5, props.getJsonNumber("d").doubleValue());
        assertEquals(9_000_000_000L, props.getJsonNumber("l").longValue());
        assertFalse(p.containsKey("correlationId"));
    }

    @Test
    void textThatIsNotJsonStaysText() {
        for (String body : new String[] {"hello", "{not json", "0123", "[1,2] trailing", ""}) {
            JsonObject p = parse(PubSubPayloads.payload(text(body, Map.of()), LIMIT));
            assertEquals(body, p.getString("body"), body);
        }
    }

    @Test
    void nulCharactersNeverReachTheDatabase() {
        String payload = PubSubPayloads.payload(text("a\0b", Map.of("k\0", "v\0")), LIMIT);
        assertFalse(payload.contains("\\u0000"), payload);
        String escaped = PubSubPayloads.payload(text("{\"x\": \"\\u0000\"}", Map.of()), LIMIT);
        assertEquals("{\"x\": \"\\u0000\"}", parse(escaped).getString("body"), "kept as text, the escape escaped");
    }

    @Test
    void bytesAreBase64AndMapsAreObjectsAndObjectMessagesAreNotRead() {
        JsonObject bytes = parse(PubSubPayloads.payload(new PubSubPayloads.Received("java:/t", "ID:2", "c", 0, "T",
                Map.of(), "bytes", "hi".getBytes(StandardCharsets.UTF_8)), LIMIT));
        assertEquals("aGk=", bytes.getString("body"));
        assertEquals("c", bytes.getString("correlationId"));
        assertEquals("T", bytes.getString("type"));
        assertFalse(bytes.containsKey("timestamp"));
        JsonObject map = parse(PubSubPayloads.payload(new PubSubPayloads.Received("java:/t", "ID:3", null, 0, null,
                Map.of(), "map", Map.of("k", 1, "z", "s")), LIMIT));
        assertEquals(1, map.getJsonObject("body").getInt("k"));
        JsonObject object = parse(PubSubPayloads.payload(new PubSubPayloads.Received("java:/t", "ID:4", null, 0, null,
                Map.of(), "object", null), LIMIT));
        assertEquals(JsonValue.NULL, object.get("body"));
        assertEquals("object", object.getString("bodyType"));
    }

    @Test
    void aBodyTooLargeIsLeftOutWithItsSizeAndTheEventStillFits() {
        String big = "x".repeat(5_000);
        String payload = PubSubPayloads.payload(text(big, Map.of("p", "v")), 1_000);
        assertTrue(payload.getBytes(StandardCharsets.UTF_8).length <= 1_000, payload);
        JsonObject p = parse(payload);
        assertEquals(JsonValue.NULL, p.get("body"));
        assertTrue(p.getString("bodyOmitted").contains("5002 bytes"), p.getString("bodyOmitted"));
        assertEquals("v", p.getJsonObject("properties").getString("p"));

        String hugeProperties = PubSubPayloads.payload(text("small", Map.of("p", big)), 1_000);
        assertTrue(hugeProperties.getBytes(StandardCharsets.UTF_8).length <= 1_000, hugeProperties);
        assertTrue(parse(hugeProperties).getJsonObject("properties").isEmpty());
    }

    @Test
    void aJsonBodyJsonbCannotHoldStaysTextSoTheMessageNeverFailsItsBatch() {
        for (String body : new String[] {"{\"n\":1e131072}", "[1e-16384]", "{\"s\":\"\\ud800\"}",
                "{\"s\":\"\\u0000\"}"}) {
            String payload = PubSubPayloads.payload(text(body, Map.of()), LIMIT);
            assertTrue(StorableJson.check(payload).storable(), payload);
            assertEquals(body, parse(payload).getString("body"), body);
        }
    }

    @Test
    void loneSurrogatesBecomeTheReplacementCharacter() {
        String payload = PubSubPayloads.payload(text("a\uD800b \uD83D\uDE00", Map.of("p\uDC00", "v\uD800")), LIMIT);
        assertTrue(StorableJson.check(payload).storable(), payload);
        JsonObject p = parse(payload);
        assertEquals("a\uFFFDb \uD83D\uDE00", p.getString("body"));
        assertEquals("v\uFFFD", p.getJsonObject("properties").getString("p\uFFFD"));
    }

    @Test
    void numbersCountAsStoredAgainstTheLimit() {
        // 8 bytes as sent, 131,072 digits as stored and delivered
        String payload = PubSubPayloads.payload(text("[1e131071, 1e131071]", Map.of()), LIMIT);
        assertTrue(StorableJson.check(payload).storedBytes() <= LIMIT, payload);
        assertTrue(parse(payload).containsKey("bodyOmitted"), payload);
    }
}
