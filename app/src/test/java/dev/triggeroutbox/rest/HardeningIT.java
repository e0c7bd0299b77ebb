package dev.triggeroutbox.rest;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.RawRequests;
import jakarta.json.JsonObject;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * What a hostile or unlucky client finds beyond bad values (those are {@link InputIT}'s): ids that
 * are the server's, secrets in stored answers, addresses taken from the request, requests a foreign
 * page makes a signed-in browser send, races between calls. Black-box, against the deployed WAR.
 */
@ExtendWith(ArquillianExtension.class)
class HardeningIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    /** The test's client, and the other clients it opens for concurrent calls; all closed after each test. */
    private final List<Api> clients = new ArrayList<>();
    private Api api;

    @BeforeEach
    void client() {
        api = client(clients);
    }

    private Api client(List<Api> opened) {
        Api client = new Api(base);
        synchronized (opened) {
            opened.add(client);
        }
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(Api::close);
        clients.clear();
    }

    private String trigger(String kind, String target) {
        Api.Reply r = api.post(ADMIN, "apps/" + APP_A + "/triggers",
                "{\"sourceKind\":\"" + kind + "\",\"target\":" + target + "}");
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private String enqueue(String trigger, UUID replyTo) {
        return "{\"appId\":\"" + APP_A + "\",\"sourceKind\":\"kv\",\"triggerId\":\"" + trigger + "\",\"replyTo\":\""
                + replyTo
                + "\",\"payload\":{}}";
    }

    @Test
    void bodiesPastTheJsonParsersBoundsAreRefusedByNameOnEveryServer() {
        // JsonValueReader reads these bodies on both servers (on Payara by its priority over Jersey's own reader)
        Map<String, String> refusals = Map.of(
                "number-too-long", "{\"payload\":{\"n\":" + "1".repeat(1_200) + "}}",
                "number-out-of-range", "{\"payload\":{\"n\":1e-2147483649}}",
                "json-too-deep", "{\"payload\":" + "[".repeat(1_100) + "]".repeat(1_100) + "}");
        refusals.forEach((type, body) -> {
            Api.Reply r = api.post(PRODUCER_A, "apps/" + APP_A + "/events", body);
            assertEquals(400, r.status(), type + " -> " + r);
            assertTrue(r.isProblem() && r.object().getString("type").endsWith(":" + type), type + " -> " + r);
        });
    }

    @Test
    void aReplyIdBelongsToOneRowOnly() throws Exception {
        String trigger = trigger("kv", "{\"type\":\"handler\",\"name\":\"recorder\"}");
        UUID reply = UUID.randomUUID();
        assertEquals(201, api.post(PRODUCER_A, "outbox", enqueue(trigger, reply)).status());
        Api.Reply again = api.post(PRODUCER_A, "outbox", enqueue(trigger, reply));
        assertEquals(409, again.status(), again.toString());
        assertTrue(again.isProblem() && again.object().getString("type").endsWith("reply-taken"), again.toString());
        // once delivered, the row is gone but its answer stays under the id: still taken
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM replies WHERE id = ?", reply) == 1,
                () -> "no answer yet");
        assertEquals(409, api.post(PRODUCER_A, "outbox", enqueue(trigger, reply)).status());

        UUID contested = UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Callable<Integer> post = () -> client(clients).post(PRODUCER_A, "outbox", enqueue(trigger, contested))
                        .status();
                answers.add(pool.submit(post));
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> f : answers) {
                statuses.add(f.get());
            }
            assertEquals(1, statuses.stream().filter(s -> s == 201).count(), statuses.toString());
            assertEquals(7, statuses.stream().filter(s -> s == 409).count(), statuses.toString());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, ItDatabase.count("""
                SELECT (SELECT count(*) FROM outbox WHERE reply_to = ?) + (SELECT count(*) FROM delivery_history h
                        JOIN replies r ON r.outbox_id = h.outbox_id WHERE r.id = ?)""", contested, contested));
    }

    @Test
    void aRepeatedTriggerCreationDoesNotAnswerOrStoreTheSecretAgain() {
        String key = "secret-" + UUID.randomUUID();
        String body = "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"http://127.0.0.1:9/hook\"},\"enabled\":false}";
        Api.Reply first = api.call(ADMIN, "POST", "apps/" + APP_A + "/triggers", body, Map.of("Idempotency-Key", key));
        assertEquals(201, first.status(), first.toString());
        String secret = first.object().getString("secret");
        assertTrue(secret.startsWith("whsec_"), first.toString());
        Api.Reply repeat = api.call(ADMIN, "POST", "apps/" + APP_A + "/triggers", body, Map.of("Idempotency-Key", key));
        assertEquals(201, repeat.status(), repeat.toString());
        assertEquals(first.object().getString("id"), repeat.object().getString("id"), "the same trigger");
        assertFalse(repeat.object().containsKey("secret"), repeat.toString());
        assertFalse(repeat.body().contains(secret.substring(6)), repeat.toString());
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM idempotency_keys WHERE key = ? AND body LIKE ?", key,
                "%" + secret.substring(6) + "%"), "the secret is in the stored answer");
    }

    @Test
    void locationsComeFromTheServerNotFromTheHostHeaderAndProducersSeeNoNodeNames() throws Exception {
        String trigger = trigger("kv", "{\"type\":\"handler\",\"name\":\"recorder\"}");
        String body = "{\"appId\":\"" + APP_A + "\",\"sourceKind\":\"kv\",\"triggerId\":\"" + trigger
                + "\",\"payload\":{}}";
        String answer = raw("POST", "outbox", Map.of("Host", "evil.example:666", "Content-Type", "application/json"),
                body);
        String head = answer.substring(0, answer.indexOf("\r\n\r\n"));
        assertTrue(head.startsWith("HTTP/1.1 201"), head);
        String location = head.lines().filter(l -> l.regionMatches(true, 0, "Location:", 0, 9)).findFirst()
                .orElseThrow()
                .substring(9).strip();
        assertTrue(location.startsWith("/outbox/api/v1/outbox/"), location);
        assertFalse(head.contains("evil.example"), head);

        String id = location.substring(location.lastIndexOf('/') + 1);
        Eventually.until(WAIT, () -> api.get(PRODUCER_A, "outbox/" + id).body().contains("\"delivered\""),
                () -> api.get(PRODUCER_A, "outbox/" + id).toString());
        Api.Reply seen = api.get(PRODUCER_A, "outbox/" + id);
        assertFalse(seen.object().containsKey("node"), seen.toString());
        assertFalse(seen.body().contains("it-node-1"), seen.toString());
        Api.Reply admin = api.get(ADMIN, "admin/rows/" + id);
        assertEquals("it-node-1", admin.object().getJsonObject("row").getString("node"), "the operator still sees it");
    }

    /**
     * A request written by hand, so the test chooses every header (also {@code Host}); returns the
     * whole answer, status line first.
     */
    private String raw(String method, String path, Map<String, String> headers, String body)
            throws java.io.IOException {
        return RawRequests.send(base, method, path, headers,
                body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aReplayedInvokeAnswersAnewInsteadOfWithItsOldDeadAnswer() {
        Api.Reply created = api.post(ADMIN, "apps/" + APP_A + "/triggers",
                "{\"sourceKind\":\"http\",\"target\":{\"type\":\"handler\",\"name\":\"failing\"},\"maxAttempts\":1}");
        assertEquals(201, created.status(), created.toString());
        String trigger = created.object().getString("id");
        // paused, so the row cannot be delivered and answered before timeoutMs=0 looks for its answer (202, its ids)
        assertEquals(204, api.post(ADMIN, "admin/dispatcher/pause", null).status());
        Api.Reply invoked;
        try {
            // each node sees the switch at its next tick and says so in its heartbeat
            Eventually.until(WAIT,
                    () -> api.get(ADMIN, "admin/nodes").object().getJsonArray("items").getValuesAs(JsonObject.class)
                            .stream().filter(n -> "alive".equals(n.getString("status")))
                            .allMatch(n -> n.getBoolean("paused")),
                    () -> api.get(ADMIN, "admin/nodes").body());
            invoked = api.post(PRODUCER_A, "apps/" + APP_A + "/triggers/" + trigger + "/invoke?timeoutMs=0",
                    "{\"payload\":{}}");
        } finally {
            assertEquals(204, api.post(ADMIN, "admin/dispatcher/resume", null).status());
        }
        assertEquals(202, invoked.status(), invoked.toString());
        String row = invoked.object().getString("id");
        String reply = "replies/" + invoked.object().getString("replyId");
        Eventually.until(WAIT, () -> api.get(PRODUCER_A, reply).status() == 502,
                () -> api.get(PRODUCER_A, reply).toString());

        Api.Reply fixed = api.call(ADMIN, "PUT", "apps/" + APP_A + "/triggers/" + trigger,
                "{\"sourceKind\":\"http\",\"target\":{\"type\":\"handler\",\"name\":\"recorder\"},\"maxAttempts\":1}",
                Map.of());
        assertEquals(200, fixed.status(), fixed.toString());
        Api.Reply replayed = api.post(ADMIN, "admin/dead-letters/" + row + "/replay", null);
        assertEquals(201, replayed.status(), replayed.toString());
        Eventually.until(WAIT, () -> api.get(PRODUCER_A, reply).status() == 200,
                () -> api.get(PRODUCER_A, reply).toString());
        assertEquals("ok",
                api.get(PRODUCER_A, reply).json() instanceof jakarta.json.JsonString s
                        ? s.getString()
                        : api.get(PRODUCER_A, reply).body());
    }

    @Test
    void aForeignPageCannotMakeASignedInBrowserChangeAnything() throws Exception {
        try {
            refusedAndAllowed();
        } finally {
            api.post(ADMIN, "admin/dispatcher/resume", null);
        }
    }

    private void refusedAndAllowed() throws Exception {
        String refused = "HTTP/1.1 403";
        for (Map<String, String> headers : List.of(
                Map.<String, String>of(),                                                       // a form with no fields
                Map.of("Content-Type", "text/plain"),                                           // a form's text/plain
                Map.of("Content-Type", "application/x-www-form-urlencoded"),
                Map.of("X-Requested-By", "x", "Origin", "http://evil.example"),                  // a script elsewhere
                Map.of("X-Requested-By", "x", "Origin", "null"))) {
            String answer = raw("POST", "admin/dispatcher/pause", headers,
                    headers.containsKey("Content-Type") ? "a=b" : null);
            assertTrue(answer.startsWith(refused), headers + " -> " + answer);
            assertTrue(answer.contains("application/problem+json") && answer.contains("cross-site-request"), answer);
            assertFalse(api.get(ADMIN, "admin/stats").object().getBoolean("paused"),
                    headers + " paused the dispatcher");
        }
        String replay = raw("POST", "admin/dead-letters/" + UUID.randomUUID() + "/replay", Map.of(), null);
        assertTrue(replay.startsWith(refused), replay);
        String discard = raw("DELETE", "admin/dead-letters/" + UUID.randomUUID(),
                Map.of("Origin", "http://evil.example"), null);
        assertTrue(discard.startsWith(refused), discard);

        // what the console and scripts send: the header, or a JSON content type; an Origin of this server
        String own = "http://" + base.getHost() + ":" + base.getPort();
        assertTrue(raw("POST", "admin/dispatcher/pause", Map.of("X-Requested-By", "console", "Origin", own), null)
                .startsWith("HTTP/1.1 204"));
        assertTrue(api.get(ADMIN, "admin/stats").object().getBoolean("paused"));
        assertTrue(raw("POST", "admin/dispatcher/resume", Map.of("Content-Type", "application/json"), null)
                .startsWith("HTTP/1.1 204"));
        assertFalse(api.get(ADMIN, "admin/stats").object().getBoolean("paused"));
    }
}
