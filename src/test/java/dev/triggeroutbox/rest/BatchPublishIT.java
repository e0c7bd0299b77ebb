package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.ItUsers.APP_A;
import static dev.triggeroutbox.support.ItUsers.APP_B;
import static dev.triggeroutbox.support.ItUsers.NOBODY;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
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
 * The batch calls as a client sees them: {@code POST /apps/{appId}/events:batch} and
 * {@code POST /outbox:batch} against the deployed WAR. Each test works in an app of its own (the admin
 * reaches every app), so what was written is counted by app, in the outbox and in history.
 */
@ExtendWith(ArquillianExtension.class)
class BatchPublishIT {

    /** A due time rows keep while the test looks at them: inside the deliverAt window of now ± 10 years. */
    private static final String LATER = java.time.Instant.now().plus(java.time.Duration.ofDays(5 * 365))
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void client() {
        api = new Api(base);
    }

    @AfterEach
    void close() {
        api.close();
    }

    private String trigger(UUID inApp, String kind) {
        Api.Reply r = api.post(ADMIN, "apps/" + inApp + "/triggers", """
                {"sourceKind":"%s","target":{"type":"handler","name":"recorder"}}""".formatted(kind));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    /** Rows of the app anywhere: still in the outbox, delivered or dead. */
    private static long written(UUID app) {
        return ItDatabase.count("""
                SELECT (SELECT count(*) FROM outbox WHERE app_id = ?) + (SELECT count(*) FROM delivery_history WHERE app_id = ?)
                     + (SELECT count(*) FROM dead_letters WHERE app_id = ?)""", app, app, app);
    }

    private static String events(int n, String event) {
        return IntStream.range(0, n).mapToObj(i -> event).collect(Collectors.joining(",", "{\"events\":[", "]}"));
    }

    private static Map<String, String> errors(Api.Reply r) {
        assertTrue(r.isProblem(), r.toString());
        return r.object().getJsonArray("errors").getValuesAs(JsonObject.class).stream()
                .collect(Collectors.toMap(e -> e.getString("field"), e -> e.getString("message")));
    }

    @Test
    void aBatchFansOutEveryEventInOrderAndEachRowIsDelivered() {
        String kv1 = trigger(app, "kv");
        String kv2 = trigger(app, "kv");
        String docs = trigger(app, "docs");
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/events:batch", """
                {"events":[
                  {"sourceKind":"kv","payload":{"key":"a"}},
                  {"sourceKind":"files","payload":{"no":"trigger"}},
                  {"sourceKind":"docs","payload":[1,2,3],"triggerDepth":2},
                  {"sourceKind":"kv","payload":"b","deliverAt":"%s"}]}""".formatted(LATER));
        assertEquals(202, r.status(), r.toString());
        List<JsonObject> rows = r.object().getJsonArray("rows").getValuesAs(JsonObject.class);
        assertEquals(List.of(0, 0, 2, 3, 3), rows.stream().map(o -> o.getInt("event")).toList(), r.toString());
        assertEquals(Set.of(kv1, kv2), Set.of(rows.get(0).getString("triggerId"), rows.get(1).getString("triggerId")));
        assertEquals(docs, rows.get(2).getString("triggerId"));
        assertEquals(5, rows.stream().map(o -> o.getString("id")).distinct().count());
        assertEquals(5, written(app));

        // the rows of one event share its root execution; every event has its own
        assertEquals(3, ItDatabase.count("SELECT count(DISTINCT root_execution_id) FROM ("
                + "SELECT root_execution_id FROM outbox WHERE app_id = ? UNION ALL "
                + "SELECT root_execution_id FROM delivery_history WHERE app_id = ?) r", app, app));
        for (JsonObject row : rows.subList(0, 3)) {
            String id = row.getString("id");
            Eventually.until(WAIT, () -> "delivered".equals(status(id)), () -> status(id));
        }
        assertEquals(2, ItDatabase.count("SELECT trigger_depth FROM delivery_history WHERE outbox_id = ?::uuid",
                rows.get(2).getString("id")));
        assertEquals("scheduled", status(rows.get(3).getString("id")));
        assertEquals("scheduled", status(rows.get(4).getString("id")));
    }

    private String status(String id) {
        Api.Reply r = api.get(ADMIN, "outbox/" + id);
        return r.status() == 200 ? r.object().getString("status") : "HTTP " + r.status();
    }

    @Test
    void oneBadEventRefusesTheWholeBatchNamingEachEventAndField() {
        trigger(app, "kv");
        String ok = "{\"sourceKind\":\"kv\",\"payload\":{}}";
        Api.Reply bad = api.post(ADMIN, "apps/" + app + "/events:batch", "{\"events\":[" + ok + ","
                + "{\"sourceKind\":\"nope\",\"payload\":{}}," + ok + ","
                + "{\"sourceKind\":\"kv\",\"status\":\"delivered\"}]}");
        assertEquals(400, bad.status(), bad.toString());
        Map<String, String> errors = errors(bad);
        assertEquals(Set.of("events[1].sourceKind", "events[3].payload", "events[3].status"), errors.keySet(), bad.toString());

        // the checks of a single event, each named by its event
        Api.Reply deep = api.post(ADMIN, "apps/" + app + "/events:batch",
                "{\"events\":[" + ok + ",{\"sourceKind\":\"kv\",\"payload\":{},\"triggerDepth\":99}]}");
        assertEquals(422, deep.status(), deep.toString());
        assertEquals(Set.of("events[1].triggerDepth"), errors(deep).keySet());
        Api.Reply nul = api.post(ADMIN, "apps/" + app + "/events:batch",
                "{\"events\":[{\"sourceKind\":\"kv\",\"payload\":\"a\\u0000b\"}," + ok + "]}");
        assertEquals(400, nul.status(), nul.toString());
        assertEquals(Set.of("events[0].payload"), errors(nul).keySet());
        Api.Reply large = api.post(ADMIN, "apps/" + app + "/events:batch", "{\"events\":[" + ok + "," + ok
                + ",{\"sourceKind\":\"kv\",\"payload\":\"" + "x".repeat(300 * 1024) + "\"}]}");
        assertEquals(413, large.status(), large.toString());
        assertEquals(Set.of("events[2].payload"), errors(large).keySet());

        for (String body : List.of("{}", "{\"events\":[]}", "{\"events\":{}}", "{\"events\":[1]}", "[]", "{\"events\":[" + ok + "],\"x\":1}")) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/events:batch", body);
            assertEquals(400, r.status(), body + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
        }
        assertEquals(0, written(app), "nothing of a refused batch is written");
    }

    @Test
    void moreEventsThanTheLimitAre413AndTheLimitItselfIsAccepted() {
        trigger(app, "kv");
        String event = "{\"sourceKind\":\"kv\",\"payload\":1,\"deliverAt\":\"" + LATER + "\"}";
        Api.Reply over = api.post(ADMIN, "apps/" + app + "/events:batch", events(1001, event));
        assertEquals(413, over.status(), over.toString());
        assertTrue(over.isProblem(), over.toString());
        assertTrue(over.object().getString("detail").contains("outbox.max-batch-events"), over.toString());
        assertEquals(0, written(app));

        Api.Reply full = api.post(ADMIN, "apps/" + app + "/events:batch", events(1000, event));
        assertEquals(202, full.status(), full.toString());
        assertEquals(1000, full.object().getJsonArray("rows").size());
        assertEquals(999, full.object().getJsonArray("rows").getJsonObject(999).getInt("event"));
        assertEquals(1000, written(app));
    }

    @Test
    void theSameIdempotencyKeyRepeatsTheBatchsAnswerAndWritesItOnce() {
        trigger(app, "kv");
        trigger(app, "docs");
        String body = """
                {"events":[{"sourceKind":"kv","payload":1,"deliverAt":"%s"},
                           {"sourceKind":"docs","payload":2,"deliverAt":"%s"}]}""".formatted(LATER, LATER);
        Map<String, String> key = Map.of("Idempotency-Key", "batch-" + app);
        Api.Reply first = api.call(ADMIN, "POST", "apps/" + app + "/events:batch", body, key);
        Api.Reply again = api.call(ADMIN, "POST", "apps/" + app + "/events:batch", body, key);
        assertEquals(202, first.status(), first.toString());
        assertEquals(first.body(), again.body());
        assertEquals(2, written(app));
        Api.Reply other = api.call(ADMIN, "POST", "apps/" + app + "/events:batch", body.replace("2,", "3,"), key);
        assertEquals(422, other.status(), other.toString());
        assertEquals(2, written(app));
    }

    @Test
    void aProducerReachesOnlyItsAppsAndNobodyUnsignedReachesAny() {
        trigger(APP_A, "pubsub");
        String body = "{\"events\":[{\"sourceKind\":\"pubsub\",\"payload\":{},\"deliverAt\":\"" + LATER + "\"}]}";
        assertEquals(202, api.post(PRODUCER_A, "apps/" + APP_A + "/events:batch", body).status());
        Api.Reply other = api.post(PRODUCER_A, "apps/" + APP_B + "/events:batch", body);
        assertEquals(404, other.status(), other.toString());
        assertTrue(other.isProblem());
        assertEquals(401, api.post(null, "apps/" + APP_A + "/events:batch", body).status());
        assertEquals(403, api.post(NOBODY, "apps/" + APP_A + "/events:batch", body).status());
        assertEquals(401, api.post(null, "./outbox:batch", body).status());
    }

    @Test
    void enqueueBatchWritesEveryRowOrNone() {
        String t1 = trigger(app, "kv");
        UUID otherApp = UUID.randomUUID();
        String foreign = trigger(otherApp, "kv");
        String row = "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"triggerId\":\"%s\",\"payload\":{\"n\":%d}}";
        Api.Reply r = api.post(ADMIN, "./outbox:batch", "{\"events\":[" + row.formatted(app, t1, 0) + ","
                + "{\"appId\":\"" + app + "\",\"sourceKind\":\"kv\",\"payload\":{},\"deliverAt\":\"" + LATER + "\"},"
                + row.formatted(otherApp, foreign, 2) + "]}");
        assertEquals(202, r.status(), r.toString());
        List<JsonObject> rows = r.object().getJsonArray("rows").getValuesAs(JsonObject.class);
        assertEquals(List.of(0, 1, 2), rows.stream().map(o -> o.getInt("event")).toList());
        assertEquals(t1, rows.get(0).getString("triggerId"));
        assertFalse(rows.get(1).containsKey("triggerId"), r.toString());
        assertEquals(foreign, rows.get(2).getString("triggerId"));
        Eventually.until(WAIT, () -> "delivered".equals(status(rows.get(0).getString("id"))), () -> status(rows.get(0).getString("id")));
        assertEquals("scheduled", status(rows.get(1).getString("id")));
        assertEquals(2, written(app));
        assertEquals(1, written(otherApp));

        // a trigger of another app, twice: the batch is refused and both rows are named
        UUID third = UUID.randomUUID();
        String t3 = trigger(third, "kv");
        Api.Reply refused = api.post(ADMIN, "./outbox:batch", "{\"events\":[" + row.formatted(third, t3, 0) + ","
                + row.formatted(third, foreign, 1) + "," + row.formatted(third, t3, 2) + "," + row.formatted(third, t1, 3) + "]}");
        assertEquals(422, refused.status(), refused.toString());
        assertEquals(Set.of("events[1].triggerId", "events[3].triggerId"), errors(refused).keySet());
        assertEquals(0, written(third));

        // a producer's batch with a row of an app it cannot reach: 404, the row named, nothing written
        String a = trigger(APP_A, "docs");
        long before = written(APP_A);
        Api.Reply unreachable = api.post(PRODUCER_A, "./outbox:batch", "{\"events\":["
                + row.formatted(APP_A, a, 0).replace("\"kv\"", "\"docs\"") + "," + row.formatted(APP_B, t1, 1) + "]}");
        assertEquals(404, unreachable.status(), unreachable.toString());
        assertEquals(Set.of("events[1].appId"), errors(unreachable).keySet());
        assertEquals(before, written(APP_A));

        Api.Reply invalid = api.post(ADMIN, "./outbox:batch", "{\"events\":[{\"sourceKind\":\"kv\",\"payload\":{}}]}");
        assertEquals(400, invalid.status(), invalid.toString());
        assertEquals(Set.of("events[0].appId"), errors(invalid).keySet());
    }
}
