package dev.triggeroutbox.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The body a trigger definition sends: only the fields it sets, so the server's defaults apply to the rest. */
class TriggerDefinitionTest {

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    @Test
    void sendsOnlyWhatItSets() {
        assertEquals(json("""
                {"sourceKind":"kv","target":{"type":"webhook","url":"https://example.com/hook"}}"""),
                TriggerDefinition.webhook("kv", URI.create("https://example.com/hook")).json());
    }

    @Test
    void aDisabledCronTriggerWithItsScheduleAndPolicies() {
        TriggerDefinition cron = TriggerDefinition.handler("cron", "recorder")
                .schedule("0 */5 * * * *", "Europe/Berlin")
                .misfire("skip").maxAttempts(3).onDeadLetter("block").enabled(false);
        assertEquals(json("""
                {"sourceKind":"cron","target":{"type":"handler","name":"recorder"},"maxAttempts":3,"enabled":false,
                 "onDeadLetter":"block","schedule":"0 */5 * * * *","timezone":"Europe/Berlin","misfire":"skip"}"""),
                cron.json());
        assertEquals(cron, cron.enabled(false), "each wither keeps the other fields");
        assertTrue(cron.enabled(true).json().getBoolean("enabled"));
    }
}
