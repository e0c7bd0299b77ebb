package dev.triggeroutbox.outbox;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.APP_B;
import static dev.triggeroutbox.testkit.ItUsers.NOBODY;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
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
 * reaches every app), so what was written is counted by app, in the outbox and in history. Calls go through the typed
 * client; bodies it cannot send (unknown or missing fields, no credentials) are raw requests.
 */
@ExtendWith(ArquillianExtension.class)
class BatchPublishIT {

    /** A due time rows keep while the test looks at them: inside the deliverAt window of now ± 10 years. */
    private static final OffsetDateTime LATER = OffsetDateTime.now(ZoneOffset.UTC).plusDays(5 * 365)
            .truncatedTo(ChronoUnit.SECONDS);

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private OutboxClient client;
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void client() {
        api = new Api(base);
        client = ItClients.client(base, ADMIN);
    }

    @AfterEach
    void close() {
        client.close();
        api.close();
    }

    private UUID trigger(UUID inApp, String kind) {
        return client.createTrigger(inApp, TriggerDefinition.handler(kind, "recorder"), Call.plain()).id();
    }

    /** Rows of the app anywhere: still in the outbox, delivered or dead. */
    private static long written(UUID app) {
        return ItDatabase.count("""
                SELECT (SELECT count(*) FROM outbox WHERE app_id = ?) + (SELECT count(*) FROM delivery_history WHERE app_id = ?)
                     + (SELECT count(*) FROM dead_letters WHERE app_id = ?)""", app, app, app);
    }

    private static Map<String, String> errors(Api.Reply r) {
        assertTrue(r.isProblem(), r.toString());
        return r.object().getJsonArray("errors").getValuesAs(JsonObject.class).stream()
                .collect(Collectors.toMap(e -> e.getString("field"), e -> e.getString("message")));
    }

    private static Set<String> fields(ProblemException refused) {
        return refused.errors().stream().map(ProblemException.FieldError::field).collect(Collectors.toSet());
    }

    private static JsonObject object(String name, String value) {
        return Json.createObjectBuilder().add(name, value).build();
    }

    @Test
    void aBatchFansOutEveryEventInOrderAndEachRowIsDelivered() {
        UUID kv1 = trigger(app, "kv");
        UUID kv2 = trigger(app, "kv");
        UUID docs = trigger(app, "docs");
        List<OutboxClient.Written> rows = client.publishAll(app, List.of(
                Event.of("kv", object("key", "a")),
                Event.of("files", object("no", "trigger")),
                new Event("docs", Json.createArrayBuilder().add(1).add(2).add(3).build(), null, 2, null),
                Event.of("kv", Json.createValue("b")).deliverAt(LATER)), Call.plain());
        assertEquals(List.of(0, 0, 2, 3, 3), rows.stream().map(OutboxClient.Written::event).toList(), rows.toString());
        assertEquals(Set.of(kv1, kv2), Set.of(rows.get(0).triggerId(), rows.get(1).triggerId()));
        assertEquals(docs, rows.get(2).triggerId());
        assertEquals(5, rows.stream().map(OutboxClient.Written::id).distinct().count());
        assertEquals(5, written(app));

        // the rows of one event share its root execution; every event has its own
        assertEquals(3, ItDatabase.count("SELECT count(DISTINCT root_execution_id) FROM ("
                + "SELECT root_execution_id FROM outbox WHERE app_id = ? UNION ALL "
                + "SELECT root_execution_id FROM delivery_history WHERE app_id = ?) r", app, app));
        for (OutboxClient.Written row : rows.subList(0, 3)) {
            Eventually.until(WAIT, () -> "delivered".equals(status(row.id())), () -> status(row.id()));
        }
        assertEquals(2,
                ItDatabase.count("SELECT trigger_depth FROM delivery_history WHERE outbox_id = ?", rows.get(2).id()));
        assertEquals("scheduled", status(rows.get(3).id()));
        assertEquals("scheduled", status(rows.get(4).id()));
    }

    private String status(UUID id) {
        return ItClients.status(client, id);
    }

    @Test
    void oneBadEventRefusesTheWholeBatchNamingEachEventAndField() {
        trigger(app, "kv");
        // by hand: fields the client does not send, or leaves out
        String ok = "{\"sourceKind\":\"kv\",\"payload\":{}}";
        Api.Reply bad = api.post(ADMIN, "apps/" + app + "/events:batch", "{\"events\":[" + ok + ","
                + "{\"sourceKind\":\"nope\",\"payload\":{}}," + ok + ","
                + "{\"sourceKind\":\"kv\",\"status\":\"delivered\"}]}");
        assertEquals(400, bad.status(), bad.toString());
        Map<String, String> errors = errors(bad);
        assertEquals(Set.of("events[1].sourceKind", "events[3].payload", "events[3].status"), errors.keySet(),
                bad.toString());

        // the checks of a single event, each named by its event
        Event fine = Event.of("kv", JsonValue.EMPTY_JSON_OBJECT);
        ProblemException deep = assertRefused(422, "trigger-depth-exceeded", () -> client.publishAll(app,
                List.of(fine, new Event("kv", JsonValue.EMPTY_JSON_OBJECT, null, 99, null)), Call.plain()));
        assertEquals(Set.of("events[1].triggerDepth"), fields(deep));
        ProblemException nul = assertRefused(400, "validation", () -> client.publishAll(app,
                List.of(Event.of("kv", Json.createValue("a\u0000b")), fine), Call.plain()));
        assertEquals(Set.of("events[0].payload"), fields(nul));
        ProblemException large = assertRefused(413, "payload-too-large", () -> client.publishAll(app,
                List.of(fine, fine, Event.of("kv", Json.createValue("x".repeat(300 * 1024)))), Call.plain()));
        assertEquals(Set.of("events[2].payload"), fields(large));

        for (String body : List.of("{}", "{\"events\":[]}", "{\"events\":{}}", "{\"events\":[1]}", "[]",
                "{\"events\":[" + ok + "],\"x\":1}")) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/events:batch", body);
            assertEquals(400, r.status(), body + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
        }
        assertEquals(0, written(app), "nothing of a refused batch is written");
    }

    @Test
    void moreEventsThanTheLimitAre413AndTheLimitItselfIsAccepted() {
        trigger(app, "kv");
        Event event = Event.of("kv", Json.createValue(1)).deliverAt(LATER);
        ProblemException over = assertRefused(413, "batch-too-large",
                () -> client.publishAll(app, Collections.nCopies(1001, event), Call.plain()));
        assertTrue(over.detail().contains("outbox.max-batch-events"), over.getMessage());
        assertEquals(0, written(app));

        List<OutboxClient.Written> full = client.publishAll(app, Collections.nCopies(1000, event), Call.plain());
        assertEquals(1000, full.size());
        assertEquals(999, full.get(999).event());
        assertEquals(1000, written(app));
    }

    @Test
    void theSameIdempotencyKeyRepeatsTheBatchsAnswerAndWritesItOnce() {
        trigger(app, "kv");
        trigger(app, "docs");
        List<Event> events = List.of(Event.of("kv", Json.createValue(1)).deliverAt(LATER),
                Event.of("docs", Json.createValue(2)).deliverAt(LATER));
        Call key = Call.idempotent("batch-" + app);
        List<OutboxClient.Written> first = client.publishAll(app, events, key);
        assertEquals(first, client.publishAll(app, events, key));
        assertEquals(2, written(app));
        assertRefused(422, "idempotency-key-reused", () -> client.publishAll(app,
                List.of(events.get(0), Event.of("docs", Json.createValue(3)).deliverAt(LATER)), key));
        assertEquals(2, written(app));
    }

    @Test
    void aProducerReachesOnlyItsAppsAndNobodyUnsignedReachesAny() {
        trigger(APP_A, "pubsub");
        List<Event> events = List.of(Event.of("pubsub", JsonValue.EMPTY_JSON_OBJECT).deliverAt(LATER));
        try (OutboxClient producer = ItClients.client(base, PRODUCER_A);
                OutboxClient nobody = ItClients.client(base, NOBODY)) {
            assertFalse(producer.publishAll(APP_A, events, Call.plain()).isEmpty());
            assertRefused(404, "not-found", () -> producer.publishAll(APP_B, events, Call.plain()));
            assertRefused(403, "forbidden", () -> nobody.publishAll(APP_A, events, Call.plain()));
        }
        // by hand: no credentials at all
        String body = "{\"events\":[{\"sourceKind\":\"pubsub\",\"payload\":{},\"deliverAt\":\"" + LATER + "\"}]}";
        assertEquals(401, api.post(null, "apps/" + APP_A + "/events:batch", body).status());
        assertEquals(401, api.post(null, "./outbox:batch", body).status());
    }

    private static NewRow row(UUID inApp, UUID trigger, int n) {
        return NewRow.of(inApp, "kv", trigger, Json.createObjectBuilder().add("n", n).build());
    }

    @Test
    void enqueueBatchWritesEveryRowOrNone() {
        UUID t1 = trigger(app, "kv");
        UUID otherApp = UUID.randomUUID();
        UUID foreign = trigger(otherApp, "kv");
        List<OutboxClient.Written> rows = client.enqueueAll(List.of(row(app, t1, 0),
                new NewRow(app, "kv", null, JsonValue.EMPTY_JSON_OBJECT, LATER), row(otherApp, foreign, 2)),
                Call.plain());
        assertEquals(List.of(0, 1, 2), rows.stream().map(OutboxClient.Written::event).toList());
        assertEquals(t1, rows.get(0).triggerId());
        assertNull(rows.get(1).triggerId(), rows.toString());
        assertEquals(foreign, rows.get(2).triggerId());
        Eventually.until(WAIT, () -> "delivered".equals(status(rows.get(0).id())), () -> status(rows.get(0).id()));
        assertEquals("scheduled", status(rows.get(1).id()));
        assertEquals(2, written(app));
        assertEquals(1, written(otherApp));

        // a trigger of another app, twice: the batch is refused and both rows are named
        UUID third = UUID.randomUUID();
        UUID t3 = trigger(third, "kv");
        ProblemException refused = assertRefused(422, "unknown-trigger",
                () -> client.enqueueAll(List.of(row(third, t3, 0),
                        row(third, foreign, 1), row(third, t3, 2), row(third, t1, 3)), Call.plain()));
        assertEquals(Set.of("events[1].triggerId", "events[3].triggerId"), fields(refused));
        assertEquals(0, written(third));

        // a producer's batch with a row of an app it cannot reach: 404, the row named, nothing written
        UUID a = trigger(APP_A, "docs");
        long before = written(APP_A);
        try (OutboxClient producer = ItClients.client(base, PRODUCER_A)) {
            ProblemException unreachable = assertRefused(404, "not-found", () -> producer.enqueueAll(List.of(
                    NewRow.of(APP_A, "docs", a, JsonValue.EMPTY_JSON_OBJECT), row(APP_B, t1, 1)), Call.plain()));
            assertEquals(Set.of("events[1].appId"), fields(unreachable));
        }
        assertEquals(before, written(APP_A));

        // by hand: a row without its app
        Api.Reply invalid = api.post(ADMIN, "./outbox:batch", "{\"events\":[{\"sourceKind\":\"kv\",\"payload\":{}}]}");
        assertEquals(400, invalid.status(), invalid.toString());
        assertEquals(Set.of("events[0].appId"), errors(invalid).keySet());
    }
}
