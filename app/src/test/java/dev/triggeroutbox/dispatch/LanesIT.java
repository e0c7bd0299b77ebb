package dev.triggeroutbox.dispatch;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.client.ProblemException;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
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
 * and write nothing. A real HTTP receiver on loopback answers with delays that would reorder unordered rows. Calls go
 * through the typed client; keys and lane calls it cannot send are raw requests.
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
    private OutboxClient client;
    private Receiver receiver;
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        client = ItClients.client(base, ADMIN);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        client.close();
        api.close();
    }

    private TriggerDefinition webhook(String path) {
        return TriggerDefinition.webhook("kv", URI.create(receiver.url(path)));
    }

    private UUID trigger(TriggerDefinition definition) {
        return client.createTrigger(app, definition, Call.plain()).id();
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

    private static Event event(String key, int i) {
        return Event.of("kv", Json.createObjectBuilder().add("k", key).add("i", i).build()).orderingKey(key);
    }

    private void publish(String key, int i) {
        client.publish(app, event(key, i));
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
        trigger(webhook("/ordered"));
        int keys = 6;
        int perKey = 12;
        // half as batches (events interleaved across keys), half one by one: both keep a lane's order
        List<Event> batch = new ArrayList<>();
        for (int i = 0; i < perKey / 2; i++) {
            for (int k = 0; k < keys; k++) {
                batch.add(event("k" + k, i));
            }
        }
        client.publishAll(app, batch, Call.plain());
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
        UUID trigger = trigger(webhook("/continue").maxAttempts(2));
        for (int i = 0; i < 4; i++) {
            publish("c", i);
        }
        Eventually.until(WAIT, () -> receiver.rowsAt("/continue").size() == 4,
                () -> receiver.rowsAt("/continue").size() + " rows");
        assertEquals(List.of(0, 1, 2, 3), arrivals("/continue").get("c"),
                "the dead head first, then the rest in order");
        assertEquals(2, receiver.at("/continue").stream().filter(r -> body(r).getInt("i") == 0).count(),
                "two attempts of the head");
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE trigger_id = ?"
                + " AND outcome = 'delivered'", trigger) == 3, () -> "history");
        assertEquals(1, ItDatabase
                .count("SELECT count(*) FROM dead_letters WHERE trigger_id = ? AND ordering_key = 'c'", trigger));
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM lane_blocks WHERE lane = ?", trigger),
                "continue blocks nothing");
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
        UUID trigger = trigger(webhook("/block").maxAttempts(2).onDeadLetter("block"));
        assertEquals("block", client.trigger(app, trigger).json().getString("onDeadLetter"));
        for (int i = 0; i < 5; i++) {
            publish("retried", i);
            publish("skipped", i);
            publish("free", i);
        }
        Eventually.until(WAIT, () -> arrivals("/block").getOrDefault("free", List.of()).size() == 5,
                () -> arrivals("/block").toString());
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM lane_blocks WHERE lane = ?", trigger) == 2,
                () -> "blocks: " + ItDatabase.count("SELECT count(*) FROM lane_blocks WHERE lane = ?", trigger));
        assertEquals(List.of(0, 1, 2, 3, 4), arrivals("/block").get("free"), "the lane without a failure flowed");
        assertEquals(List.of(0), arrivals("/block").get("retried"),
                "a blocked lane delivers nothing behind its dead head");
        assertEquals(List.of(0), arrivals("/block").get("skipped"));

        List<JsonObject> lanes = client.lanes(app, null);
        assertEquals(2, lanes.size(), lanes.toString());
        for (JsonObject lane : lanes) {
            assertEquals("blocked", lane.getString("state"), lane.toString());
            assertEquals(trigger.toString(), lane.getString("triggerId"));
            assertEquals(4, lane.getInt("waiting"), lane.toString());
            assertEquals(2, lane.getInt("attempts"), lane.toString());
            assertTrue(lane.getString("lastError").contains("500"), lane.toString());
        }

        healthy.put("retried", true);
        assertEquals("blocked", client.retryLane(trigger, "retried").getString("state"));
        Eventually.until(WAIT, () -> arrivals("/block").get("retried").size() == 5,
                () -> arrivals("/block").toString());
        assertEquals(List.of(0, 1, 2, 3, 4), arrivals("/block").get("retried"),
                "the replayed head first, then the rest");

        JsonObject skipped = client.skipLane(trigger, "skipped");
        Eventually.until(WAIT, () -> arrivals("/block").get("skipped").size() == 5,
                () -> arrivals("/block").toString());
        assertEquals(List.of(0, 1, 2, 3, 4), arrivals("/block").get("skipped"));
        UUID head = UUID.fromString(skipped.getString("headId"));
        assertEquals("dead", client.status(head).status(), "a skipped head stays dead");
        assertEquals("skipped", client.status(head).orderingKey());

        assertRefused(409, "lane-not-blocked", () -> client.skipLane(trigger, "skipped"));
        assertEquals(1, ItDatabase
                .count("SELECT count(*) FROM admin_audit WHERE action = 'lane.skip' AND ? = ANY (target_ids)", head));
        assertEquals(0, client.lanes(app, null).size());
    }

    private static Set<String> fields(ProblemException refused) {
        return refused.errors().stream().map(ProblemException.FieldError::field).collect(Collectors.toSet());
    }

    @Test
    void badKeysAndLaneCallsAreRefusedAndWriteNothing() {
        UUID trigger = trigger(webhook("/refused"));
        // raw bodies: two of these keys are no text at all, which the client cannot send
        for (String bad : List.of("\"\"", "\"" + "x".repeat(201) + "\"", "7", "{}")) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/events",
                    "{\"sourceKind\":\"kv\",\"payload\":1,\"orderingKey\":" + bad + "}");
            assertEquals(400, r.status(), bad + ": " + r);
            assertTrue(r.isProblem() && r.body().contains("orderingKey"), r.toString());
        }
        ProblemException batch = assertRefused(400, "validation", () -> client.publishAll(app,
                List.of(event("ok", 0), Event.of("kv", Json.createValue(1)).orderingKey("")), Call.plain()));
        assertTrue(fields(batch).contains("events[1].orderingKey"), batch.errors().toString());
        assertRefused(400, "validation",
                () -> client.enqueue(NewRow.of(app, "kv", trigger, Json.createValue(1)).orderingKey("y".repeat(201))));
        assertEquals(1, ItDatabase.everythingOf(app), "a refused call wrote nothing (the app has its trigger only)");

        ProblemException policy = assertRefused(400, "validation",
                () -> client.createTrigger(app, TriggerDefinition.handler("kv", "x").onDeadLetter("stop"),
                        Call.plain()));
        assertTrue(fields(policy).contains("onDeadLetter"), policy.errors().toString());

        // a lane without its trigger or its key: more than the client sends
        assertEquals(400, api.post(ADMIN, "admin/lanes/skip", "{\"orderingKey\":\"a\"}").status(),
                "a lane needs its trigger");
        assertEquals(400, api.post(ADMIN, "admin/lanes/retry", "{\"triggerId\":\"" + trigger + "\"}").status(),
                "and its key");
        assertEquals(404, assertThrows(ProblemException.class, () -> client.skipLane(UUID.randomUUID(), "a")).status());
        assertRefused(409, "lane-not-stuck", () -> client.retryLane(trigger, "a"));
        try (OutboxClient producer = ItClients.client(base, PRODUCER_A)) {
            assertEquals(403, assertThrows(ProblemException.class, () -> producer.skipLane(trigger, "a")).status());
        }
        assertEquals(400, assertThrows(ProblemException.class, () -> client.lanes(null, 0)).status());
    }
}
