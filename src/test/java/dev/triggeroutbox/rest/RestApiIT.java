package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.ItUsers.APP_A;
import static dev.triggeroutbox.support.ItUsers.APP_B;
import static dev.triggeroutbox.support.ItUsers.NOBODY;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_A;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
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
 * The REST contract as a client sees it: a JAX-RS client against the deployed WAR, signing in as
 * the test accounts of {@link dev.triggeroutbox.support.ItUsers}. Deliveries go to the test
 * handlers inside the WAR; what was written is checked in the database directly.
 */
@ExtendWith(ArquillianExtension.class)
class RestApiIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    /** A deliverAt that keeps a row scheduled for the whole run, inside the 10 years a deliverAt may lie ahead. */
    private static final String LATER = java.time.Instant.now().plus(Duration.ofDays(5 * 365)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;

    @BeforeEach
    void client() {
        api = new Api(base);
    }

    @AfterEach
    void close() {
        api.close();
    }

    private String handlerTrigger(UUID app, String kind, String handler, boolean enabled) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"%s","target":{"type":"handler","name":"%s"},"enabled":%s}""".formatted(kind, handler, enabled));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private String status(String user, String rowId) {
        Api.Reply r = api.get(user, "outbox/" + rowId);
        return r.status() == 200 ? r.object().getString("status") : "HTTP " + r.status();
    }

    // ---- the happy paths -------------------------------------------------------------------

    @Test
    void publishWritesOneRowPerMatchingEnabledTriggerAndEachIsDelivered() {
        String t1 = handlerTrigger(APP_A, "files", "recorder", true);
        String t2 = handlerTrigger(APP_A, "files", "recorder", true);
        handlerTrigger(APP_A, "files", "recorder", false);
        handlerTrigger(APP_A, "pubsub", "recorder", true);

        Api.Reply r = api.post(PRODUCER_A, "apps/" + APP_A + "/events", """
                {"sourceKind":"files","payload":{"path":"/a.txt","op":"put"}}""");
        assertEquals(202, r.status(), r.toString());
        List<JsonObject> rows = r.object().getJsonArray("rows").getValuesAs(JsonObject.class);
        assertEquals(Set.of(t1, t2), Set.copyOf(rows.stream().map(o -> o.getString("triggerId")).toList()));
        for (JsonObject row : rows) {
            String id = row.getString("id");
            Eventually.until(WAIT, () -> "delivered".equals(status(PRODUCER_A, id)), () -> status(PRODUCER_A, id));
            JsonObject seen = api.get(PRODUCER_A, "outbox/" + id).object();
            assertEquals("files", seen.getString("sourceKind"));
            assertEquals(APP_A.toString(), seen.getString("appId"));
            assertEquals(1, seen.getInt("attemptCount"));
        }
    }

    @Test
    void enqueueAnswers201WithLocationAndTheRowCanBeFollowed() {
        String trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        Api.Reply r = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{"key":"k","value":42}}""".formatted(APP_A, trigger));
        assertEquals(201, r.status(), r.toString());
        String id = r.object().getString("id");
        assertTrue(r.location().endsWith("/outbox/api/v1/outbox/" + id), r.location());
        Eventually.until(WAIT, () -> "delivered".equals(status(PRODUCER_A, id)), () -> status(PRODUCER_A, id));

        Api.Reply later = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{},"deliverAt":"%s"}""".formatted(APP_A, trigger, LATER));
        assertEquals(201, later.status(), later.toString());
        assertEquals("scheduled", status(PRODUCER_A, later.object().getString("id")));
    }

    @Test
    void triggersCanBeCreatedListedChangedDisabledAndDeleted() {
        String id = handlerTrigger(APP_A, "docs", "recorder", true);
        Api.Reply list = api.get(ADMIN, "apps/" + APP_A + "/triggers");
        assertEquals(200, list.status());
        assertTrue(list.json().asJsonArray().getValuesAs(JsonObject.class).stream().anyMatch(t -> t.getString("id").equals(id)));

        Api.Reply changed = api.call(ADMIN, "PUT", "apps/" + APP_A + "/triggers/" + id, """
                {"sourceKind":"docs","target":{"type":"handler","name":"flaky"},"maxAttempts":4,"enabled":false}""");
        assertEquals(200, changed.status(), changed.toString());
        JsonObject got = api.get(ADMIN, "apps/" + APP_A + "/triggers/" + id).object();
        assertFalse(got.getBoolean("enabled"));
        assertEquals("flaky", got.getJsonObject("target").getString("name"));
        assertEquals(4, got.getInt("maxAttempts"));

        assertEquals(204, api.call(ADMIN, "DELETE", "apps/" + APP_A + "/triggers/" + id, null).status());
        Api.Reply gone = api.get(ADMIN, "apps/" + APP_A + "/triggers/" + id);
        assertEquals(404, gone.status());
        assertTrue(gone.isProblem(), gone.toString());
        // a trigger of app A is not found under app B, even for an admin
        String other = handlerTrigger(APP_A, "docs", "recorder", true);
        assertEquals(404, api.get(ADMIN, "apps/" + APP_B + "/triggers/" + other).status());
    }

    // ---- idempotency ------------------------------------------------------------------------

    @Test
    void theSameIdempotencyKeyTwiceAnswersTheFirstAnswerAndWritesOneRow() throws Exception {
        String trigger = handlerTrigger(APP_A, "email", "recorder", true);
        String marker = UUID.randomUUID().toString();
        String body = """
                {"appId":"%s","sourceKind":"email","triggerId":"%s","payload":{"marker":"%s"},"deliverAt":"%s"}""".formatted(APP_A, trigger, marker, LATER);
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
        String body = """
                {"sourceKind":"invoke","payload":{"marker":"%s"},"deliverAt":"%s"}""".formatted(marker, LATER);
        Map<String, String> key = Map.of("Idempotency-Key", marker);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Api.Reply>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(() -> {
                    try (Api own = new Api(base)) {
                        return own.call(PRODUCER_A, "POST", "apps/" + APP_A + "/events", body, key);
                    }
                });
            }
            Set<String> bodies = new HashSet<>();
            for (Future<Api.Reply> f : pool.invokeAll(calls)) {
                Api.Reply r = f.get();
                assertEquals(202, r.status(), r.toString());
                bodies.add(r.body());
            }
            assertEquals(1, bodies.size(), "every caller got the first answer: " + bodies);
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
        String trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        String events = "apps/" + APP_A + "/events";
        String triggers = "apps/" + APP_A + "/triggers";
        record Case(String path, String body, int status, String field) {
        }
        List<Case> cases = List.of(
                new Case("outbox", "{\"appId\":", 400, null),
                new Case("outbox", "not json at all", 400, null),
                new Case("outbox", "[1,2]", 400, "(body)"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"telepathy\",\"payload\":{}}".formatted(APP_A), 400, "sourceKind"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"kv\"}".formatted(APP_A), 400, "payload"),
                new Case("outbox", "{\"sourceKind\":\"kv\",\"payload\":{}}", 400, "appId"),
                new Case("outbox", "{\"appId\":42,\"sourceKind\":\"kv\",\"payload\":{}}", 400, "appId"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"triggerDepth\":\"deep\"}".formatted(APP_A), 400, "triggerDepth"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"deliverAt\":\"tomorrow\"}".formatted(APP_A), 400, "deliverAt"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"status\":\"delivered\"}".formatted(APP_A), 400, "status"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{},\"attemptCount\":0}".formatted(APP_A), 400, "attemptCount"),
                new Case("outbox", "{\"id\":\"%s\",\"appId\":\"%s\",\"sourceKind\":\"kv\",\"payload\":{}}".formatted(UUID.randomUUID(), APP_A), 400, "id"),
                new Case("outbox", "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"triggerId\":\"%s\",\"payload\":{},\"triggerDepth\":9}".formatted(APP_A, trigger), 422, null),
                new Case(events, "{\"sourceKind\":\"kv\"}", 400, "payload"),
                new Case(events, "{\"sourceKind\":[\"kv\"],\"payload\":1}", 400, "sourceKind"),
                new Case(events, "{\"sourceKind\":\"kv\",\"payload\":{},\"claimToken\":\"x\"}", 400, "claimToken"),
                new Case(triggers, "{\"sourceKind\":\"kv\"}", 400, "target"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"carrier-pigeon\",\"name\":\"x\"}}", 400, "target.type"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"url\":\"http://x\"}}", 400, "target.url"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"ftp://x/y\"}}", 400, "target.url"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"r\"},\"maxAttempts\":0}", 400, "maxAttempts"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"r\"},\"enabled\":\"yes\"}", 400, "enabled"),
                new Case(triggers, "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"nobody-home\"}}", 422, null));
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
        Api.Reply r = api.post(PRODUCER_A, "apps/" + APP_A + "/events", "{\"sourceKind\":\"kv\",\"payload\":\"" + big + "\"}");
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
        String trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        String rowA = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{}}""".formatted(APP_A, trigger)).object().getString("id");
        String enqueueA = "{\"appId\":\"%s\",\"sourceKind\":\"kv\",\"triggerId\":\"%s\",\"payload\":{}}".formatted(APP_A, trigger);
        String publish = "{\"sourceKind\":\"http\",\"payload\":{}}";
        String newTrigger = "{\"sourceKind\":\"http\",\"target\":{\"type\":\"handler\",\"name\":\"recorder\"}}";
        record Call(String method, String path, String body, int anonymous, int nobody, int producerA, int producerB, int admin) {
        }
        List<Call> calls = List.of(
                new Call("POST", "outbox", enqueueA, 401, 403, 201, 404, 201),
                new Call("GET", "outbox/" + rowA, null, 401, 403, 200, 404, 200),
                new Call("POST", "apps/" + APP_A + "/events", publish, 401, 403, 202, 404, 202),
                new Call("POST", "apps/" + APP_A + "/triggers/" + trigger + "/invoke?timeoutMs=5000", "{\"payload\":{}}", 401, 403, 200, 404, 200),
                new Call("GET", "replies/" + UUID.randomUUID(), null, 401, 403, 404, 404, 404),
                new Call("GET", "apps/" + APP_A + "/triggers", null, 401, 403, 403, 403, 200),
                new Call("POST", "apps/" + APP_A + "/triggers", newTrigger, 401, 403, 403, 403, 201),
                new Call("GET", "apps/" + APP_A + "/triggers/" + trigger, null, 401, 403, 403, 403, 200),
                new Call("PUT", "apps/" + APP_A + "/triggers/" + trigger, newTrigger.replace("http", "kv"), 401, 403, 403, 403, 200),
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
        String trigger = handlerTrigger(APP_A, "kv", "recorder", true);
        Api.Reply a = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{"secret":"of A"}}""".formatted(APP_A, trigger));
        String row = a.object().getString("id");
        Api.Reply asB = api.get(PRODUCER_B, "outbox/" + row);
        Api.Reply unknown = api.get(PRODUCER_B, "outbox/" + UUID.randomUUID());
        assertEquals(404, asB.status());
        assertEquals(unknown.status(), asB.status());
        assertFalse(asB.body().contains(APP_A.toString()), "the answer must not reveal app A: " + asB.body());
        assertEquals(404, api.post(PRODUCER_B, "apps/" + APP_A + "/events", "{\"sourceKind\":\"kv\",\"payload\":{}}").status());
        assertEquals(404, api.post(PRODUCER_B, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{}}""".formatted(APP_A, trigger)).status());
        // nor can A's producer send its rows to a trigger of B
        String triggerOfB = handlerTrigger(APP_B, "kv", "recorder", true);
        Api.Reply crossed = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{}}""".formatted(APP_A, triggerOfB));
        assertEquals(404, crossed.status(), crossed.toString());
        assertTrue(crossed.isProblem());
        // and B's own app works for B
        assertEquals(202, api.post(PRODUCER_B, "apps/" + APP_B + "/events", "{\"sourceKind\":\"kv\",\"payload\":{}}").status());
    }

    @Test
    void invokeOfAHandlerAnswersWithItsReturnValue() {
        String trigger = handlerTrigger(APP_A, "http", "recorder", true);
        Api.Reply r = api.post(PRODUCER_A, "apps/" + APP_A + "/triggers/" + trigger + "/invoke?timeoutMs=5000", "{\"payload\":{\"x\":1}}");
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
        String trigger = handlerTrigger(APP_B, "pubsub", "recorder", true);
        String failing = handlerTrigger(APP_B, "pubsub", "failing", true);
        api.call(ADMIN, "PUT", "apps/" + APP_B + "/triggers/" + failing,
                "{\"sourceKind\":\"pubsub\",\"target\":{\"type\":\"handler\",\"name\":\"failing\"},\"maxAttempts\":1}");
        Map<String, Double> before = metrics();
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            api.post(PRODUCER_B, "apps/" + APP_B + "/events", "{\"sourceKind\":\"pubsub\",\"payload\":{\"n\":" + i + "}}")
                    .object().getJsonArray("rows").getValuesAs(JsonObject.class).forEach(r -> rows.add(r.getString("id")));
        }
        assertEquals(10, rows.size());
        for (String id : rows) {
            Eventually.until(WAIT, () -> Set.of("delivered", "dead").contains(status(PRODUCER_B, id)), () -> status(PRODUCER_B, id));
        }
        Map<String, Double> after = metrics();
        assertEquals(10, delta(before, after, "outbox_enqueued_total{kind=\"pubsub\"}"));
        assertEquals(5, delta(before, after, "outbox_delivered_total{kind=\"pubsub\"}"));
        assertEquals(5, delta(before, after, "outbox_dead_lettered_total{kind=\"pubsub\"}"));
        assertTrue(delta(before, after, "outbox_delivery_duration_seconds_count") >= 10);
        assertTrue(after.containsKey("outbox_due_rows") && after.containsKey("outbox_oldest_due_age_seconds"), after.toString());
        assertEquals(403, api.get(PRODUCER_B, "metrics").status());
        assertEquals(401, api.get(null, "metrics").status());
    }

    /** Scrapes /metrics as an admin: sample name with labels -> value. */
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
                Map.of("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString((ADMIN + ":wrong").getBytes())));
        assertEquals(401, r.status());
        assertTrue(r.isProblem(), r.toString());
    }

    // ---- admin --------------------------------------------------------------------------------

    @Test
    void deadLettersCanBeListedReplayedAndDiscarded() {
        String failing = handlerTrigger(APP_B, "cron", "failing", true);
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rows.add(api.post(PRODUCER_B, "outbox", """
                    {"appId":"%s","sourceKind":"cron","triggerId":"%s","payload":{"n":%d}}""".formatted(APP_B, failing, i))
                    .object().getString("id"));
        }
        for (String id : rows) {
            Eventually.until(WAIT, () -> "dead".equals(status(PRODUCER_B, id)), () -> status(PRODUCER_B, id));
        }
        // paged, newest first, filtered by app and kind
        Set<String> seen = new HashSet<>();
        String cursor = null;
        do {
            Api.Reply page = api.get(ADMIN, "admin/dead-letters?appId=" + APP_B + "&sourceKind=cron&limit=2"
                    + (cursor == null ? "" : "&cursor=" + cursor));
            assertEquals(200, page.status(), page.toString());
            page.object().getJsonArray("items").getValuesAs(JsonObject.class).forEach(d -> {
                assertEquals(APP_B.toString(), d.getString("appId"));
                assertTrue(d.getString("lastError").startsWith("IllegalStateException: boom"), d.toString());
                seen.add(d.getString("id"));
            });
            cursor = page.object().isNull("nextCursor") ? null : page.object().getString("nextCursor");
        } while (cursor != null);
        assertTrue(seen.containsAll(rows), seen + " should contain " + rows);

        // repoint the trigger at a working handler, replay one, discard another
        api.call(ADMIN, "PUT", "apps/" + APP_B + "/triggers/" + failing,
                "{\"sourceKind\":\"cron\",\"target\":{\"type\":\"handler\",\"name\":\"recorder\"}}");
        Api.Reply replay = api.post(ADMIN, "admin/dead-letters/" + rows.get(0) + "/replay", null);
        assertEquals(201, replay.status(), replay.toString());
        assertNotNull(replay.location());
        Eventually.until(WAIT, () -> "delivered".equals(status(PRODUCER_B, rows.get(0))), () -> status(PRODUCER_B, rows.get(0)));
        assertEquals(404, api.post(ADMIN, "admin/dead-letters/" + rows.get(0) + "/replay", null).status());

        assertEquals(204, api.call(ADMIN, "DELETE", "admin/dead-letters/" + rows.get(1), null).status());
        assertEquals(404, api.call(ADMIN, "DELETE", "admin/dead-letters/" + rows.get(1), null).status());

        Api.Reply bad = api.get(ADMIN, "admin/dead-letters?limit=100000");
        assertEquals(400, bad.status());
        assertTrue(bad.isProblem());
    }

    @Test
    void statsAndThePauseSwitch() {
        JsonObject stats = api.get(ADMIN, "admin/stats").object();
        for (String field : List.of("pending", "scheduled", "inFlight", "dead", "deliveredLastMinute", "oldestDueAgeSeconds", "byKind")) {
            assertTrue(stats.containsKey(field), field + " missing in " + stats);
        }
        String trigger = handlerTrigger(APP_A, "docs", "recorder", true);
        assertEquals(204, api.post(ADMIN, "admin/dispatcher/pause", null).status());
        try {
            // give every node one poll to see the switch, then a row must stay pending
            Eventually.until(WAIT, () -> {
                String id = api.post(PRODUCER_A, "outbox", """
                        {"appId":"%s","sourceKind":"docs","triggerId":"%s","payload":{}}""".formatted(APP_A, trigger)).object().getString("id");
                long deadline = System.currentTimeMillis() + 600;
                while (System.currentTimeMillis() < deadline) {
                    if (!"pending".equals(status(PRODUCER_A, id))) {
                        return false;
                    }
                }
                pausedRow = id;
                return true;
            }, () -> "rows kept being dispatched while paused");
            // the console's counts may be as old as outbox.console.counts-max-age-ms
            Eventually.until(WAIT, () -> api.get(ADMIN, "admin/stats").object().getInt("pending") >= 1,
                    () -> api.get(ADMIN, "admin/stats").object().toString());
        } finally {
            assertEquals(204, api.post(ADMIN, "admin/dispatcher/resume", null).status());
        }
        Eventually.until(WAIT, () -> "delivered".equals(status(PRODUCER_A, pausedRow)), () -> status(PRODUCER_A, pausedRow));
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
        ItDatabase.update("INSERT INTO replies (id, app_id, outbox_id, outcome, body) VALUES (?, ?, gen_random_uuid(), 'delivered', '{}')",
                fresh, app);
        String old = "SELECT count(*) FROM replies WHERE app_id = ? AND created_at < now() - interval '1 hour'";
        Eventually.until(WAIT, () -> ItDatabase.count(old, app) == 0, () -> ItDatabase.count(old, app) + " old answers left");
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM replies WHERE id = ?", fresh), "an answer within its retention stays");
    }

    private String pausedRow;

    private static void assertNoInternals(Api.Reply r) {
        for (String leak : List.of("Exception", "SQL", "org.", "java.", "jakarta.", "at dev.", "RESTEASY")) {
            assertFalse(r.body().contains(leak), "problem leaks '" + leak + "': " + r.body());
        }
    }
}
