package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Ordered lanes: rows of one trigger with the same {@code orderingKey} reach the receiver one at a time in enqueue
 * order, however long each takes and however often one is retried, while other keys flow beside them; a dead head
 * lets its lane move on, or blocks it (onDeadLetter block) until an operator retries or skips it; bad keys are refused
 * and write nothing. A real HTTP receiver on loopback answers with delays that would reorder unordered rows.
 */
@ExtendWith(ArquillianExtension.class)
class LanesIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private Receiver receiver;
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        api.close();
    }

    private String webhook(String path, String extra) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\""
                + receiver.url(path) + "\"}" + extra + "}");
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private static JsonObject body(Receiver.Request r) {
        return Json.createReader(new StringReader(r.body())).readObject();
    }

    /** Per key, the {@code i} of each row as it first arrived (a retried row counts where it first came). */
    private Map<String, List<Integer>> arrivals(String path) {
        Map<String, List<Integer>> byKey = new LinkedHashMap<>();
        for (Receiver.Request r : receiver.rowsAt(path)) {
            JsonObject b = body(r);
            byKey.computeIfAbsent(b.getString("k"), k -> new ArrayList<>()).add(b.getInt("i"));
        }
        return byKey;
    }

    private static String event(String key, int i) {
        return "{\"sourceKind\":\"kv\",\"orderingKey\":\"" + key + "\",\"payload\":{\"k\":\"" + key + "\",\"i\":" + i + "}}";
    }

    private void publish(String key, int i) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/events", event(key, i));
        assertEquals(202, r.status(), r.toString());
    }

    @Test
    void eachKeyArrivesInEnqueueOrderUnderRetriesAndSlowAnswersWhileKeysFlowBeside() {
        // answers take 0 to 40 ms, so rows delivered side by side would overtake each other; k1's third row fails twice
        Map<String, Integer> failures = new java.util.concurrent.ConcurrentHashMap<>();
        receiver.answer("/ordered", request -> {
            JsonObject b = body(request);
            String row = b.getString("k") + "/" + b.getInt("i");
            if (row.equals("k1/2") && failures.merge(row, 1, Integer::sum) <= 2) {
                return Receiver.Answer.of(503);
            }
            return new Receiver.Answer(204, Map.of(), "", (b.getInt("i") * 17L) % 41);
        });
        webhook("/ordered", "");
        int keys = 6;
        int perKey = 12;
        // half as batches (events interleaved across keys), half one by one: both keep a lane's order
        StringBuilder batch = new StringBuilder("{\"events\":[");
        for (int i = 0; i < perKey / 2; i++) {
            for (int k = 0; k < keys; k++) {
                batch.append(i == 0 && k == 0 ? "" : ",").append(event("k" + k, i));
            }
        }
        Api.Reply written = api.post(ADMIN, "apps/" + app + "/events:batch", batch.append("]}").toString());
        assertEquals(202, written.status(), written.toString());
        for (int i = perKey / 2; i < perKey; i++) {
            for (int k = 0; k < keys; k++) {
                publish("k" + k, i);
            }
        }
        Eventually.until(WAIT, () -> receiver.rowsAt("/ordered").size() == keys * perKey,
                () -> receiver.rowsAt("/ordered").size() + " rows arrived");
        List<Integer> order = IntStream.range(0, perKey).boxed().toList();
        arrivals("/ordered").forEach((key, seen) -> assertEquals(order, seen, "lane " + key + " out of order"));
        assertEquals(keys, arrivals("/ordered").size());
        assertEquals(3, failures.get("k1/2"), "k1/2 failed twice, then was delivered: " + failures);
    }

    @Test
    void aDeadHeadLetsItsLaneMoveOnByDefault() {
        receiver.answer("/continue", request -> Receiver.Answer.of(body(request).getInt("i") == 0 ? 500 : 204));
        String trigger = webhook("/continue", ",\"maxAttempts\":2");
        for (int i = 0; i < 4; i++) {
            publish("c", i);
        }
        Eventually.until(WAIT, () -> receiver.rowsAt("/continue").size() == 4, () -> receiver.rowsAt("/continue").size() + " rows");
        assertEquals(List.of(0, 1, 2, 3), arrivals("/continue").get("c"), "the dead head first, then the rest in order");
        assertEquals(2, receiver.at("/continue").stream().filter(r -> body(r).getInt("i") == 0).count(), "two attempts of the head");
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE trigger_id = ?::uuid"
                + " AND outcome = 'delivered'", trigger) == 3, () -> "history");
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE trigger_id = ?::uuid AND ordering_key = 'c'", trigger));
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM lane_blocks WHERE lane = ?::uuid", trigger), "continue blocks nothing");
    }

    @Test
    void aBlockingTriggersDeadHeadHoldsOnlyItsLaneUntilRetriedOrSkipped() {
        Map<String, Boolean> healthy = new java.util.concurrent.ConcurrentHashMap<>(Map.of("retried", false));
        receiver.answer("/block", request -> {
            JsonObject b = body(request);
            boolean failing = b.getInt("i") == 0 && !b.getString("k").equals("free")
                    && !(b.getString("k").equals("retried") && healthy.get("retried"));
            return Receiver.Answer.of(failing ? 500 : 204);
        });
        String trigger = webhook("/block", ",\"maxAttempts\":2,\"onDeadLetter\":\"block\"");
        assertEquals("block", api.get(ADMIN, "apps/" + app + "/triggers/" + trigger).object().getString("onDeadLetter"));
        for (int i = 0; i < 5; i++) {
            publish("retried", i);
            publish("skipped", i);
            publish("free", i);
        }
        Eventually.until(WAIT, () -> arrivals("/block").getOrDefault("free", List.of()).size() == 5, () -> arrivals("/block").toString());
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM lane_blocks WHERE lane = ?::uuid", trigger) == 2,
                () -> "blocks: " + ItDatabase.count("SELECT count(*) FROM lane_blocks WHERE lane = ?::uuid", trigger));
        assertEquals(List.of(0, 1, 2, 3, 4), arrivals("/block").get("free"), "the lane without a failure flowed");
        assertEquals(List.of(0), arrivals("/block").get("retried"), "a blocked lane delivers nothing behind its dead head");
        assertEquals(List.of(0), arrivals("/block").get("skipped"));

        List<JsonObject> lanes = api.get(ADMIN, "admin/lanes?appId=" + app).object().getJsonArray("items").getValuesAs(JsonObject.class);
        assertEquals(2, lanes.size(), lanes.toString());
        for (JsonObject lane : lanes) {
            assertEquals("blocked", lane.getString("state"), lane.toString());
            assertEquals(trigger, lane.getString("triggerId"));
            assertEquals(4, lane.getInt("waiting"), lane.toString());
            assertEquals(2, lane.getInt("attempts"), lane.toString());
            assertTrue(lane.getString("lastError").contains("500"), lane.toString());
        }

        healthy.put("retried", true);
        Api.Reply retried = api.post(ADMIN, "admin/lanes/retry", "{\"triggerId\":\"" + trigger + "\",\"orderingKey\":\"retried\"}");
        assertEquals(200, retried.status(), retried.toString());
        assertEquals("blocked", retried.object().getString("state"));
        Eventually.until(WAIT, () -> arrivals("/block").get("retried").size() == 5, () -> arrivals("/block").toString());
        assertEquals(List.of(0, 1, 2, 3, 4), arrivals("/block").get("retried"), "the replayed head first, then the rest");

        Api.Reply skipped = api.post(ADMIN, "admin/lanes/skip", "{\"triggerId\":\"" + trigger + "\",\"orderingKey\":\"skipped\"}");
        assertEquals(200, skipped.status(), skipped.toString());
        Eventually.until(WAIT, () -> arrivals("/block").get("skipped").size() == 5, () -> arrivals("/block").toString());
        assertEquals(List.of(0, 1, 2, 3, 4), arrivals("/block").get("skipped"));
        String head = skipped.object().getString("headId");
        assertEquals("dead", api.get(ADMIN, "outbox/" + head).object().getString("status"), "a skipped head stays dead");
        assertEquals("skipped", api.get(ADMIN, "outbox/" + head).object().getString("orderingKey"));

        Api.Reply again = api.post(ADMIN, "admin/lanes/skip", "{\"triggerId\":\"" + trigger + "\",\"orderingKey\":\"skipped\"}");
        assertEquals(409, again.status(), again.toString());
        assertTrue(again.isProblem() && again.object().getString("type").endsWith("lane-not-blocked"), again.toString());
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM admin_audit WHERE action = 'lane.skip' AND ?::uuid = ANY (target_ids)", head));
        assertEquals(0, api.get(ADMIN, "admin/lanes?appId=" + app).object().getJsonArray("items").size());
    }

    @Test
    void badKeysAndLaneCallsAreRefusedAndWriteNothing() {
        String trigger = webhook("/refused", "");
        for (String bad : List.of("\"\"", "\"" + "x".repeat(201) + "\"", "7", "{}")) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/events", "{\"sourceKind\":\"kv\",\"payload\":1,\"orderingKey\":" + bad + "}");
            assertEquals(400, r.status(), bad + ": " + r);
            assertTrue(r.isProblem() && r.body().contains("orderingKey"), r.toString());
        }
        Api.Reply batch = api.post(ADMIN, "apps/" + app + "/events:batch",
                "{\"events\":[" + event("ok", 0) + ",{\"sourceKind\":\"kv\",\"payload\":1,\"orderingKey\":\"\"}]}");
        assertEquals(400, batch.status(), batch.toString());
        assertTrue(batch.body().contains("events[1].orderingKey"), batch.toString());
        Api.Reply row = api.post(ADMIN, "outbox", "{\"appId\":\"" + app + "\",\"triggerId\":\"" + trigger
                + "\",\"sourceKind\":\"kv\",\"payload\":1,\"orderingKey\":\"" + "y".repeat(201) + "\"}");
        assertEquals(400, row.status(), row.toString());
        assertEquals(1, ItDatabase.everythingOf(app), "a refused call wrote nothing (the app has its trigger only)");

        Api.Reply policy = api.post(ADMIN, "apps/" + app + "/triggers", "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"x\"},\"onDeadLetter\":\"stop\"}");
        assertEquals(400, policy.status(), policy.toString());
        assertTrue(policy.body().contains("onDeadLetter"), policy.toString());

        assertEquals(400, api.post(ADMIN, "admin/lanes/skip", "{\"orderingKey\":\"a\"}").status(), "a lane needs its trigger");
        assertEquals(400, api.post(ADMIN, "admin/lanes/retry", "{\"triggerId\":\"" + trigger + "\"}").status(), "and its key");
        assertEquals(404, api.post(ADMIN, "admin/lanes/skip", "{\"triggerId\":\"" + UUID.randomUUID() + "\",\"orderingKey\":\"a\"}").status());
        Api.Reply notStuck = api.post(ADMIN, "admin/lanes/retry", "{\"triggerId\":\"" + trigger + "\",\"orderingKey\":\"a\"}");
        assertEquals(409, notStuck.status(), notStuck.toString());
        assertEquals(403, api.post(PRODUCER_A, "admin/lanes/skip", "{\"triggerId\":\"" + trigger + "\",\"orderingKey\":\"a\"}").status());
        assertEquals(400, api.get(ADMIN, "admin/lanes?limit=0").status());
    }
}
