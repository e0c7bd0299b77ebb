package dev.triggeroutbox.rest.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.triggeroutbox.api.OutboxRefusedException;
import jakarta.json.JsonValue;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JsonBodyTest {

    private static JsonValue json(String text) {
        return Jsons.reader(text).readValue();
    }

    private static OutboxRefusedException refusal(String body, java.util.function.Consumer<JsonBody> read) {
        JsonBody b = JsonBody.of(json(body), Set.of("n", "s"));
        read.accept(b);
        return assertThrows(OutboxRefusedException.class, b::validate, body);
    }

    @Test
    void aWholeNumberOutsideItsRangeIsRefusedNotWrappedAround() {
        for (String n : new String[] {"18446744073709551619", "4294967299", "-1", "9223372036854775808", "9"}) {
            OutboxRefusedException e = refusal("{\"n\":" + n + "}", b -> b.integer("n", false, 0, 8));
            assertEquals("n", e.errors().get(0).field(), n);
        }
        JsonBody ok = JsonBody.of(json("{\"n\":8}"), Set.of("n"));
        assertEquals(8, ok.integer("n", false, 0, 8));
    }

    @Test
    void stringsWithNulOrALoneSurrogateAreRefused() {
        for (String s : new String[] {"\"a\\u0000\"", "\"\\ud800\"", "\"x\\udfff\""}) {
            OutboxRefusedException e = refusal("{\"s\":" + s + "}", b -> b.string("s", true));
            assertEquals("s", e.errors().get(0).field(), s);
        }
        JsonBody ok = JsonBody.of(json("{\"s\":\"\\\\u0000 \\ud83d\\ude00\"}"), Set.of("s"));
        assertEquals("\\u0000 \uD83D\uDE00", ok.string("s", true));
    }
}
