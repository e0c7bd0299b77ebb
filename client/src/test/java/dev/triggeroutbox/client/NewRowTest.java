package dev.triggeroutbox.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triggeroutbox.client.OutboxClient.NewRow;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The body of an enqueued row: only the fields it sets; a row of a cascade names its root and depth. */
class NewRowTest {

    private static final UUID APP = UUID.fromString("0a0a0a0a-0000-4000-8000-00000000000a");
    private static final UUID TRIGGER = UUID.fromString("7e7e7e7e-0000-4000-8000-000000000001");
    private static final UUID ROOT = UUID.fromString("12121212-0000-4000-8000-000000000002");

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    @Test
    void aRowOfItsOwnSendsNoCascade() {
        assertEquals(json("""
                {"appId":"%s","sourceKind":"kv","payload":1,"triggerId":"%s"}""".formatted(APP, TRIGGER)),
                NewRow.of(APP, "kv", TRIGGER, Json.createValue(1)).json().build());
    }

    @Test
    void aRowOfACascadeKeepsEverythingElse() {
        NewRow row = new NewRow(APP, "kv", TRIGGER, Json.createValue(1), OffsetDateTime.parse("2030-01-02T03:04:05Z"))
                .orderingKey("order-7").cascade(ROOT, 2);
        assertEquals(json("""
                {"appId":"%s","sourceKind":"kv","payload":1,"triggerId":"%s","deliverAt":"2030-01-02T03:04:05Z",
                 "orderingKey":"order-7","rootExecutionId":"%s","triggerDepth":2}""".formatted(APP, TRIGGER, ROOT)),
                row.json().build());
        assertEquals(row, row.cascade(ROOT, 2).orderingKey("order-7"), "each wither keeps the other fields");
    }
}
