package dev.triggeroutbox.rest;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItClients.status;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.APP_B;
import static dev.triggeroutbox.testkit.ItUsers.NOBODY;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxApi;
import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.client.ProblemException;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.ChunkedPost;
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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The REST contract as a client sees it: the typed client against the deployed WAR, signing in as
 * the test accounts of {@link dev.triggeroutbox.testkit.ItUsers}, and raw requests where the HTTP is the
 * point (bad bodies, statuses by role, headers, open paths). Deliveries go to the test
 * handlers inside the WAR; what was written is checked in the database directly.
 */
@ExtendWith(ArquillianExtension.class)
class RestApiIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    /** A deliverAt that keeps a row scheduled for the whole run, inside the 10 years a deliverAt may lie ahead. */
    private static final String LATER = java.time.Instant.now().plus(Duration.ofDays(5 * 365))
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private OutboxClient admin;
    private OutboxClient producerA;
    private OutboxClient producerB;

    @BeforeEach
    void client() {
        api = new Api(base);
        admin = ItClients.client(base, ADMIN);
        producerA = ItClients.client(base, PRODUCER_A);
        producerB = ItClients.client(base, PRODUCER_B);
    }

    @AfterEach
    void close() {
        producerB.close();
        producerA.close();
        admin.close();
        api.close();
    }

    private UUID handlerTrigger(UUID app, String kind, String handler, boolean enabled) {
        return admin.createTrigger(app, TriggerDefinition.handler(kind, handler).enabled(enabled), Call.plain()).id();
    }

    private static JsonObject object(String name, Object value) {
        return Json.createObjectBuilder().add(name, value.toString()).build();
    }

    // ---- the happy paths -------------------------------------------------------------------

    @Test
    void publishWritesOneRowPerMatchingEnabledTriggerAndEachIsDelivered() {
        UUID t1 = handlerTrigger(APP_A, "files", "recorder", true);
        UUID t2 = handlerTrigger(APP_A, "files", "recorder", true);
        handlerTrigger(APP_A, "files", "recorder", false);
        handlerTrigger(APP_A, "pubsub", "recorder", true);

        List<OutboxClient.Written> rows = producerA.publish(APP_A, Event.of("files",
                Json.createObjectBuilder().add("path", "/a.txt").add("op", "put").build()));
        assertEquals(Set.of(t1, t2), Set.copyOf(rows.stream().map(OutboxClient.Written::triggerId).toList()));
        for (OutboxClient.Written row : rows) {
            UUID id = row.id();
            Eventually.until(WAIT, () -> "delivered".equals(status(producerA, id)), () -> status(producerA, id));
            JsonObject seen = producerA.status(id).json();
            assertEquals("files", seen.getString("sourceKind"));
            assertEquals(APP_A.toString(), seen.getString("appId"));
            assertEquals(1, seen.getInt("attemptCount"));
        }
    }

    @Test
    void enqueueAnswers201WithLocationAndTheRowCanBeFollowed() {
        UUID trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        // by hand: the Location header is the point
        Api.Reply r = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{"key":"k","value":42}}""".formatted(APP_A,
                trigger));
        assertEquals(201, r.status(), r.toString());
        UUID id = UUID.fromString(r.object().getString("id"));
        assertTrue(r.location().endsWith("/outbox/api/v1/outbox/" + id), r.location());
        Eventually.until(WAIT, () -> "delivered".equals(status(producerA, id)), () -> status(producerA, id));

        UUID later = producerA
                .enqueue(new NewRow(APP_A, "kv", trigger, JsonValue.EMPTY_JSON_OBJECT, OffsetDateTime.parse(LATER)));
        assertEquals("scheduled", status(producerA, later));
    }

    @Test
    void triggersCanBeCreatedListedChangedDisabledAndDeleted() {
        UUID id = handlerTrigger(APP_A, "docs", "recorder", true);
        assertTrue(admin.triggers(APP_A).stream().anyMatch(t -> t.id().equals(id)));

        admin.replaceTrigger(APP_A, id, TriggerDefinition.handler("docs", "flaky").maxAttempts(4).enabled(false));
        JsonObject got = admin.trigger(APP_A, id).json();
        assertFalse(got.getBoolean("enabled"));
        assertEquals("flaky", got.getJsonObject("target").getString("name"));
        assertEquals(4, got.getInt("maxAttempts"));

        admin.deleteTrigger(APP_A, id);
        assertRefused(404, "not-found", () -> admin.trigger(APP_A, id));
        // a trigger of app A is not found under app B, even for an admin
        UUID other = handlerTrigger(APP_A, "docs", "recorder", true);
        assertEquals(404, assertThrows(ProblemException.class, () -> admin.trigger(APP_B, other)).status());
    }

    // ---- idempotency ------------------------------------------------------------------------

    /** By hand: the repeat's raw answer (body, Location) is the point. */
    @Test
    void theSameIdempotencyKeyTwiceAnswersTheFirstAnswerAndWritesOneRow() throws Exception {
        UUID trigger = handlerTrigger(APP_A, "email", "recorder", true);
        String marker = UUID.randomUUID().toString();
        String body = """
                {"appId":"%s","sourceKind":"email","triggerId":"%s","payload":{"marker":"%s"},"deliverAt":"%s"}"""
                .formatted(APP_A, trigger, marker, LATER);
        Map<String, String> key = Map.of("Idempotency-Key", "order-" + marker);
        Api.Reply first = api.call(PRODUCER_A, "POST", "outbox", body, key);
        Api.Reply second = api.call(PRODUCER_A, "POST", "outbox", body, key);
        assertEquals(201, first.status());
        assertEquals(first.status(), second.status());
        assertEquals(first.body(), second.body());
        assertEquals(first.location(), second.location());
        assertEquals(1, rowsWithMarker(marker));

        Api.Reply reused = api.call(PRODUCER_A, "POST", "outbox", body.replace(marker, "other"), key);
        assertEquals(422, reused.status(), reused.toString());
        assertTrue(reused.isProblem());
    }

    @Test
    void theSameIdempotencyKeyConcurrentlyWritesOneRow() throws Exception {
        String marker = UUID.randomUUID().toString();
        handlerTrigger(APP_A, "invoke", "recorder", true);
        Event event = Event.of("invoke", object("marker", marker)).deliverAt(OffsetDateTime.parse(LATER));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<List<OutboxClient.Written>>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(() -> {
                    try (OutboxClient own = ItClients.client(base, PRODUCER_A)) {
                        return own.publish(APP_A, event, Call.idempotent(marker));
                    }
                });
            }
            Set<List<OutboxClient.Written>> answers = new HashSet<>();
            for (Future<List<OutboxClient.Written>> f : pool.invokeAll(calls)) {
                answers.add(f.get());
            }
            assertEquals(1, answers.size(), "every caller got the first answer: " + answers);
        } finally {
            pool.shutdown();
        }
        assertEquals(1, rowsWithMarker(marker));
    }

    /** Rows written with this marker; the idempotency tests schedule theirs far ahead, so they stay put. */
    private static long rowsWithMarker(String marker) {
        return ItDatabase.count("SELECT count(*) FROM outbox WHERE payload->>'marker' = ?", marker);
    }

    // ---- bad input --------------------------------------------------------------------------

    @Test
    void badInputIsAProblemWithTheRightStatusAndWritesNothing() {
        UUID trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        String events = "apps/" + APP_A + "/events";
        String triggers = "apps/" + APP_A + "/triggers";
        record Case(String path, String body, int status, String field) {
        }
        List<Case> cases = List.of(
                new Case("outbox", "{\"appId\":", 400, null),
                new Case("outbox", "not json at all", 400, null),
                new Case("outbox", "[1,2]", 400, "(body)"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"telepathy\",\"payload\":{}}".formatted(APP_A),
                        400, "sourceKind"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"kv\"}".formatted(APP_A), 400, "payload"),
                new Case("outbox", "{\"sourceKind\":\"kv\",\"payload\":{}}", 400, "appId"),
                new Case("outbox", "{\"appId\":42,\"sourceKind\":\"kv\",\"payload\":{}}", 400, "appId"),
                new Case("outbox",
                        "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"triggerDepth\":\"deep\"}"
                                .formatted(APP_A),
                        400, "triggerDepth"),
                new Case("outbox",
                        "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"deliverAt\":\"tomorrow\"}"
                                .formatted(APP_A),
                        400, "deliverAt"),
                new Case("outbox",
                        "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"status\":\"delivered\"}"
                                .formatted(APP_A),
                        400, "status"),
                new Case("outbox",
                        "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"attemptCount\":0}".formatted(APP_A),
                        400, "attemptCount"),
                new Case("outbox",
                        "{\"id\":\"%s\",\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{}}"
                                .formatted(UUID.randomUUID(), APP_A),
                        400, "id"),
                new Case("outbox",
                        "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"triggerId\":\"%s\",\"payload\":{},\"triggerDepth\":9}"
                                .formatted(APP_A, trigger),
                        422, null),
                new Case(events, "{\"sourceKind\":\"kv\"}", 400, "payload"),
                new Case(events, "{\"sourceKind\":[\"kv\"],\"payload\":1}", 400, "sourceKind"),
                new Case(events, "{\"sourceKind\":\"kv\",\"payload\":{},\"claimToken\":\"x\"}", 400, "claimToken"),
                new Case(triggers, "{\"sourceKind\":\"kv\"}", 400, "target"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"carrier-pigeon\",\"name\":\"x\"}}",
                        400, "target.type"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"url\":\"http://x\"}}",
                        400, "target.url"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"ftp://x/y\"}}",
                        400, "target.url"),
                new Case(triggers,
                        "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"r\"},\"maxAttempts\":0}",
                        400, "maxAttempts"),
                new Case(triggers,
                        "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"r\"},\"enabled\":\"yes\"}",
                        400, "enabled"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"nobody-home\"}}",
                        422, null));
        long before = ItDatabase.everythingOf(APP_A);
        for (Case c : cases) {
            String user = c.path().endsWith("triggers") ? ADMIN : PRODUCER_A;
            Api.Reply r = api.post(user, c.path(), c.body());
            assertEquals(c.status(), r.status(), c + " -> " + r);
            assertTrue(r.isProblem(), c + " -> " + r);
            assertNoInternals(r);
            if (c.field() != null) {
                assertTrue(r.object().getJsonArray("errors").getValuesAs(JsonObject.class).stream()
                        .anyMatch(e -> e.getString("field").equals(c.field())), c + " -> " + r);
            }
        }
        assertEquals(before, ItDatabase.everythingOf(APP_A), "a refused request wrote something");
    }

    @Test
    void oversizeBodiesAre413WithoutBeingRead() {
        long before = ItDatabase.everythingOf(APP_A);
        String big = "x".repeat(300 * 1024);
        Api.Reply r = api.post(PRODUCER_A, "apps/" + APP_A + "/events",
                "{\"sourceKind\":\"kv\",\"payload\":\"" + big + "\"}");
        assertEquals(413, r.status(), r.toString().substring(0, 200));
        assertTrue(r.isProblem());
        Api.Reply chunked = ChunkedPost.send(base, PRODUCER_A, "apps/" + APP_A + "/events",
                "{\"sourceKind\":\"kv\",\"payload\":\"" + big + "\"}");
        assertEquals(413, chunked.status(), chunked.toString());
        assertTrue(chunked.isProblem(), chunked.toString());
        assertEquals(before, ItDatabase.everythingOf(APP_A));
    }

    @Test
    void unknownIdsAre404Problems() {
        for (String path : List.of("outbox/" + UUID.randomUUID(), "outbox/not-a-uuid",
                "apps/" + APP_A + "/triggers/" + UUID.randomUUID(), "apps/not-a-uuid/triggers", "no/such/path")) {
            Api.Reply r = api.get(ADMIN, path);
            assertEquals(404, r.status(), path + " -> " + r);
            assertTrue(r.isProblem(), path + " -> " + r);
        }
        Api.Reply r = api.call(ADMIN, "DELETE", "admin/dead-letters/" + UUID.randomUUID(), null);
        assertEquals(404, r.status());
        assertTrue(r.isProblem());
    }

    // ---- security ----------------------------------------------------------------------------

    @Test
    void roleByEndpointMatrix() {
        UUID trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        UUID rowA = producerA.enqueue(NewRow.of(APP_A, "kv", trigger, JsonValue.EMPTY_JSON_OBJECT));
        String enqueueA = "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"triggerId\":\"%s\",\"payload\":{}}"
                .formatted(APP_A, trigger);
        String publish = "{\"sourceKind\":\"http\",\"payload\":{}}";
        String newTrigger = "{\"sourceKind\":\"http\",\"target\":{\"type\":\"handler\",\"name\":\"recorder\"}}";
        record Call(String method, String path, String body, int anonymous, int nobody, int producerA, int producerB,
                int admin) {
        }
        List<Call> calls = List.of(
                new Call("POST", "outbox", enqueueA, 401, 403, 201, 404, 201),
                new Call("GET", "outbox/" + rowA, null, 401, 403, 200, 404, 200),
                new Call("POST", "apps/" + APP_A + "/events", publish, 401, 403, 202, 404, 202),
                new Call("POST", "apps/" + APP_A + "/triggers/" + trigger + "/invoke?timeoutMs=5000",
                        "{\"payload\":{}}", 401, 403, 200, 404, 200),
                new Call("GET", "replies/" + UUID.randomUUID(), null, 401, 403, 404, 404, 404),
                new Call("GET", "apps/" + APP_A + "/triggers", null, 401, 403, 403, 403, 200),
                new Call("POST", "apps/" + APP_A + "/triggers", newTrigger, 401, 403, 403, 403, 201),
                new Call("GET", "apps/" + APP_A + "/triggers/" + trigger, null, 401, 403, 403, 403, 200),
                new Call("PUT", "apps/" + APP_A + "/triggers/" + trigger, newTrigger.replace("http", "kv"), 401, 403,
                        403, 403, 200),
                new Call("GET", "admin/stats", null, 401, 403, 403, 403, 200),
                new Call("GET", "admin/dead-letters", null, 401, 403, 403, 403, 200),
                new Call("POST", "admin/dispatcher/resume", null, 401, 403, 403, 403, 204),
                new Call("DELETE", "apps/" + APP_A + "/triggers/" + trigger, null, 401, 403, 403, 403, 204));
        for (Call c : calls) {
            int[] expected = {c.anonymous(), c.nobody(), c.producerA(), c.producerB(), c.admin()};
            String[] users = {null, NOBODY, PRODUCER_A, PRODUCER_B, ADMIN};
            for (int i = 0; i < users.length; i++) {
                Api.Reply r = api.call(users[i], c.method(), c.path(), c.body());
                assertEquals(expected[i], r.status(), c.method() + " " + c.path() + " as " + users[i] + " -> " + r);
                if (r.status() >= 400) {
                    assertTrue(r.isProblem(), c.method() + " " + c.path() + " as " + users[i] + " -> " + r);
                }
            }
        }
    }

    @Test
    void aProducerOfAppBSeesNothingOfAppA() {
        UUID trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        UUID row = producerA.enqueue(NewRow.of(APP_A, "kv", trigger, object("secret", "of A")));
        // by hand: every byte of the answer must be the same as for an unknown row
        Api.Reply asB = api.get(PRODUCER_B, "outbox/" + row);
        Api.Reply unknown = api.get(PRODUCER_B, "outbox/" + UUID.randomUUID());
        assertEquals(404, asB.status());
        assertEquals(unknown.status(), asB.status());
        assertFalse(asB.body().contains(APP_A.toString()), "the answer must not reveal app A: " + asB.body());
        assertEquals(404, assertThrows(ProblemException.class,
                () -> producerB.publish(APP_A, Event.of("kv", JsonValue.EMPTY_JSON_OBJECT))).status());
        assertEquals(404, assertThrows(ProblemException.class,
                () -> producerB.enqueue(NewRow.of(APP_A, "kv", trigger, JsonValue.EMPTY_JSON_OBJECT))).status());
        // nor can A's producer send its rows to a trigger of B
        UUID triggerOfB = handlerTrigger(APP_B, "kv", "recorder", true);
        assertRefused(404, "not-found",
                () -> producerA.enqueue(NewRow.of(APP_A, "kv", triggerOfB, JsonValue.EMPTY_JSON_OBJECT)));
        // and B's own app works for B
        producerB.publish(APP_B, Event.of("kv", JsonValue.EMPTY_JSON_OBJECT));
    }

    @Test
    void invokeOfAHandlerAnswersWithItsReturnValue() {
        UUID trigger = handlerTrigger(APP_A, "http", "recorder", true);
        OutboxClient.Invoked r = producerA.invoke(APP_A, trigger, Json.createObjectBuilder().add("x", 1).build(),
                Duration.ofSeconds(5),
                Call.plain());
        assertEquals(200, r.status(), r.toString());
        assertEquals("ok", r.body());
        assertTrue(r.contentType().startsWith("text/plain"), r.toString());
    }

    @Test
    void healthIsOpenWithoutSigningIn() {
        for (String path : List.of("health", "health/ready", "health/live")) {
            Api.Reply r = api.get(null, path);
            assertEquals(200, r.status(), path + " -> " + r);
            assertEquals("UP", r.object().getString("status"), r.toString());
            assertFalse(r.object().getJsonArray("checks").isEmpty());
        }
        assertEquals(401, api.get(null, "healthz").status(), "only the health paths are open");
    }

    @Test
    void metricsCountWhatHappenedInThePrometheusFormat() {
        handlerTrigger(APP_B, "pubsub", "recorder", true);
        UUID failing = handlerTrigger(APP_B, "pubsub", "failing", true);
        admin.replaceTrigger(APP_B, failing, TriggerDefinition.handler("pubsub", "failing").maxAttempts(1));
        Map<String, Double> before = metrics();
        List<UUID> rows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            producerB.publish(APP_B, Event.of("pubsub", Json.createObjectBuilder().add("n", i).build()))
                    .forEach(r -> rows.add(r.id()));
        }
        assertEquals(10, rows.size());
        for (UUID id : rows) {
            Eventually.until(WAIT, () -> Set.of("delivered", "dead").contains(status(producerB, id)),
                    () -> status(producerB, id));
        }
        Map<String, Double> after = metrics();
        assertEquals(10, delta(before, after, "outbox_enqueued_total{kind=\"pubsub\"}"));
        assertEquals(5, delta(before, after, "outbox_delivered_total{kind=\"pubsub\"}"));
        assertEquals(5, delta(before, after, "outbox_dead_lettered_total{kind=\"pubsub\"}"));
        assertTrue(delta(before, after, "outbox_delivery_duration_seconds_count") >= 10);
        assertTrue(after.containsKey("outbox_due_rows") && after.containsKey("outbox_oldest_due_age_seconds"),
                after.toString());
        assertEquals(403, api.get(PRODUCER_B, "metrics").status());
        assertEquals(401, api.get(null, "metrics").status());
    }

    /** Scrapes /metrics as an admin, by hand (its media type is part of the check): sample name with labels -> value. */
    private Map<String, Double> metrics() {
        Api.Reply r = api.get(ADMIN, "metrics");
        assertEquals(200, r.status(), r.toString());
        assertTrue(r.contentType().startsWith("text/plain"), r.contentType());
        Map<String, Double> samples = new java.util.HashMap<>();
        for (String line : r.body().split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int space = line.lastIndexOf(' ');
                samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return samples;
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String sample) {
        return after.getOrDefault(sample, 0.0) - before.getOrDefault(sample, 0.0);
    }

    @Test
    void wrongPasswordIs401() {
        Api.Reply r = api.call(null, "GET", "admin/stats", null,
                Map.of("Authorization",
                        "Basic " + java.util.Base64.getEncoder().encodeToString((ADMIN + ":wrong").getBytes())));
        assertEquals(401, r.status());
        assertTrue(r.isProblem(), r.toString());
    }

    // ---- admin --------------------------------------------------------------------------------

    @Test
    void deadLettersCanBeListedReplayedAndDiscarded() {
        UUID failing = handlerTrigger(APP_B, "cron", "failing", true);
        List<UUID> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rows.add(producerB
                    .enqueue(NewRow.of(APP_B, "cron", failing, Json.createObjectBuilder().add("n", i).build())));
        }
        for (UUID id : rows) {
            Eventually.until(WAIT, () -> "dead".equals(status(producerB, id)), () -> status(producerB, id));
        }
        // paged, newest first, filtered by app and kind
        OutboxApi adminApi = ItClients.restClient(base, ADMIN);
        try {
            Set<UUID> seen = new HashSet<>();
            String cursor = null;
            do {
                JsonObject page = adminApi.deadLetters(APP_B.toString(), "cron", null, 2, cursor);
                page.getJsonArray("items").getValuesAs(JsonObject.class).forEach(d -> {
                    assertEquals(APP_B.toString(), d.getString("appId"));
                    assertTrue(d.getString("lastError").startsWith("IllegalStateException: boom"), d.toString());
                    seen.add(UUID.fromString(d.getString("id")));
                });
                cursor = page.isNull("nextCursor") ? null : page.getString("nextCursor");
            } while (cursor != null);
            assertTrue(seen.containsAll(rows), seen + " should contain " + rows);
            assertRefused(400, "validation", () -> adminApi.deadLetters(null, null, null, 100_000, null));
        } finally {
            ItClients.close(adminApi);
        }

        // repoint the trigger at a working handler, replay one (by hand: its Location is checked), discard another
        admin.replaceTrigger(APP_B, failing, TriggerDefinition.handler("cron", "recorder"));
        Api.Reply replay = api.post(ADMIN, "admin/dead-letters/" + rows.get(0) + "/replay", null);
        assertEquals(201, replay.status(), replay.toString());
        assertNotNull(replay.location());
        Eventually.until(WAIT, () -> "delivered".equals(status(producerB, rows.get(0))),
                () -> status(producerB, rows.get(0)));
        assertEquals(404,
                assertThrows(ProblemException.class, () -> admin.replayDeadLetter(rows.get(0), Call.plain())).status());

        admin.discardDeadLetter(rows.get(1));
        assertEquals(404, assertThrows(ProblemException.class, () -> admin.discardDeadLetter(rows.get(1))).status());
    }

    @Test
    void statsAndThePauseSwitch() {
        JsonObject stats = admin.stats();
        for (String field : List.of("pending", "scheduled", "inFlight", "dead", "deliveredLastMinute",
                "oldestDueAgeSeconds", "byKind")) {
            assertTrue(stats.containsKey(field), field + " missing in " + stats);
        }
        UUID trigger = handlerTrigger(APP_A, "docs", "recorder", true);
        admin.pause();
        try {
            // give every node one poll to see the switch, then a row must stay pending
            Eventually.until(WAIT, () -> {
                UUID id = producerA.enqueue(NewRow.of(APP_A, "docs", trigger, JsonValue.EMPTY_JSON_OBJECT));
                long deadline = System.currentTimeMillis() + 600;
                while (System.currentTimeMillis() < deadline) {
                    if (!"pending".equals(status(producerA, id))) {
                        return false;
                    }
                }
                pausedRow = id;
                return true;
            }, () -> "rows kept being dispatched while paused");
            // the console's counts may be as old as outbox.console.counts-max-age-ms
            Eventually.until(WAIT, () -> admin.stats().getInt("pending") >= 1, () -> admin.stats().toString());
        } finally {
            admin.resume();
        }
        Eventually.until(WAIT, () -> "delivered".equals(status(producerA, pausedRow)),
                () -> status(producerA, pausedRow));
    }

    @Test
    void answersNobodyCollectedAreForgottenAfterTheirRetentionAChunkAtATime() {
        // more old answers than one delete takes (10,000), and one fresh one that must stay
        UUID app = UUID.randomUUID();
        assertEquals(25_000, ItDatabase.update("""
                INSERT INTO replies (id, app_id, outbox_id, outcome, body, created_at)
                SELECT gen_random_uuid(), ?, gen_random_uuid(), 'delivered', '{}', now() - interval '1 day'
                FROM generate_series(1, 25000)""", app));
        UUID fresh = UUID.randomUUID();
        ItDatabase.update(
                "INSERT INTO replies (id, app_id, outbox_id, outcome, body) VALUES (?, ?, gen_random_uuid(), 'delivered', '{}')",
                fresh, app);
        String old = "SELECT count(*) FROM replies WHERE app_id = ? AND created_at < now() - interval '1 hour'";
        Eventually.until(WAIT, () -> ItDatabase.count(old, app) == 0,
                () -> ItDatabase.count(old, app) + " old answers left");
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM replies WHERE id = ?", fresh),
                "an answer within its retention stays");
    }

    private UUID pausedRow;

    private static void assertNoInternals(Api.Reply r) {
        for (String leak : List.of("Exception", "SQL", "org.", "java.", "jakarta.", "at dev.", "RESTEASY")) {
            assertFalse(r.body().contains(leak), "problem leaks '" + leak + "': " + r.body());
        }
    }
}
