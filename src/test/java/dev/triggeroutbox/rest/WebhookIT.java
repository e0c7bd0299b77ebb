package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Webhooks end to end (as an admin, who reaches every app; the producer side is RestApiIT's): a real HTTP receiver on loopback (allow-listed for the test server with
 * outbox.webhook.allowed-hosts=127.0.0.1), signatures checked by a verifier written from the
 * Standard Webhooks spec, and the delivery semantics of every kind of answer.
 */
@ExtendWith(ArquillianExtension.class)
class WebhookIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private Receiver receiver;
    /** Each test its own app, so fan-out meets only that test's triggers. */
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

    /** A webhook trigger of app A for its own source kind; returns the creation answer (with the secret). */
    private JsonObject webhook(String kind, String path, Integer maxAttempts) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"%s","target":{"type":"webhook","url":"%s"}%s}""".formatted(kind, receiver.url(path),
                maxAttempts == null ? "" : ",\"maxAttempts\":" + maxAttempts));
        assertEquals(201, r.status(), r.toString());
        return r.object();
    }

    private String enqueue(String trigger, String kind, String payload) {
        Api.Reply r = api.post(ADMIN, "outbox", """
                {"appId":"%s","sourceKind":"%s","triggerId":"%s","payload":%s}""".formatted(app, kind, trigger, payload));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private JsonObject row(String id) {
        return api.get(ADMIN, "outbox/" + id).object();
    }

    private void awaitStatus(String id, String status) {
        Eventually.until(WAIT, () -> status.equals(row(id).getString("status")), () -> row(id).toString());
    }

    @Test
    void publishReachesEachMatchingWebhookOnceSignedWithItsSecret() {
        receiver.script("/one", n -> Receiver.Answer.of(200));
        receiver.script("/two", n -> new Receiver.Answer(204, Map.of(), ""));
        JsonObject one = webhook("kv", "/one", null);
        JsonObject two = webhook("kv", "/two", null);
        assertTrue(one.getString("secret").startsWith("whsec_"));
        assertFalse(api.get(ADMIN, "apps/" + app + "/triggers/" + one.getString("id")).object().containsKey("secret"),
                "the secret is shown once, at creation");

        UUID root = UUID.randomUUID();
        Api.Reply published = api.post(ADMIN, "apps/" + app + "/events", """
                {"sourceKind":"kv","payload":{"key":"k1","value":[1,2,3]},"rootExecutionId":"%s","triggerDepth":2}""".formatted(root));
        assertEquals(202, published.status(), published.toString());
        Eventually.until(WAIT, () -> receiver.at("/one").size() == 1 && receiver.at("/two").size() == 1,
                () -> receiver.at("/one").size() + " / " + receiver.at("/two").size());
        for (String id : published.object().getJsonArray("rows").getValuesAs(JsonObject.class).stream()
                .map(r -> r.getString("id")).toList()) {
            awaitStatus(id, "delivered");
        }

        for (var pair : List.of(Map.entry(one, receiver.at("/one").get(0)), Map.entry(two, receiver.at("/two").get(0)))) {
            Receiver.Request got = pair.getValue();
            JsonObject trigger = pair.getKey();
            assertTrue(StandardWebhooksVerifier.verify(trigger.getString("secret"), got.header("webhook-id"),
                    got.header("webhook-timestamp"), got.header("webhook-signature"), got.body()), "signature of " + got);
            assertFalse(StandardWebhooksVerifier.verify(one == trigger ? two.getString("secret") : one.getString("secret"),
                    got.header("webhook-id"), got.header("webhook-timestamp"), got.header("webhook-signature"), got.body()),
                    "another trigger's secret must not verify");
            assertTrue(got.body().contains("\"key\"") && got.body().contains("k1"), got.body());
            assertEquals("application/json", got.header("content-type"));
            assertEquals(app.toString(), got.header("outbox-app-id"));
            assertEquals("kv", got.header("outbox-source-kind"));
            assertEquals(trigger.getString("id"), got.header("outbox-trigger-id"));
            assertEquals("1", got.header("outbox-attempt"));
            assertEquals(root.toString(), got.header("outbox-root-execution-id"));
            assertEquals("2", got.header("outbox-trigger-depth"));
        }
        assertFalse(receiver.at("/one").get(0).header("webhook-id").equals(receiver.at("/two").get(0).header("webhook-id")));
    }

    private static boolean verifies(String secret, Receiver.Request got, String signatures) {
        return StandardWebhooksVerifier.verify(secret, got.header("webhook-id"), got.header("webhook-timestamp"), signatures,
                got.body());
    }

    /** The IT server's overlap is short (outbox.webhook.secret-overlap-ms=6000 in pom.xml), so the test sees it end. */
    @Test
    void aRotatedSecretIsAnsweredOnceAndSignsBesideTheOldOneUntilTheOverlapEnds() {
        receiver.script("/rotating", n -> Receiver.Answer.of(204));
        JsonObject created = webhook("kv", "/rotating", null);
        String trigger = created.getString("id");
        String old = created.getString("secret");
        String path = "apps/" + app + "/triggers/" + trigger + "/secret";
        Map<String, String> key = Map.of("Idempotency-Key", "rotate-" + trigger);

        Api.Reply rotated = api.call(ADMIN, "POST", path, null, key);
        assertEquals(200, rotated.status(), rotated.toString());
        String fresh = rotated.object().getString("secret");
        assertTrue(fresh.startsWith("whsec_"), fresh);
        assertNotEquals(old, fresh);
        assertEquals(trigger, rotated.object().getString("id"));
        Instant expires = OffsetDateTime.parse(rotated.object().getString("previousSecretExpiresAt")).toInstant();

        Api.Reply repeat = api.call(ADMIN, "POST", path, null, key);
        assertEquals(200, repeat.status(), repeat.toString());
        assertFalse(repeat.object().containsKey("secret"), "a repeat answers the trigger without the secret: " + repeat);
        assertEquals(rotated.object().getString("previousSecretExpiresAt"), repeat.object().getString("previousSecretExpiresAt"),
                "a repeat rotates nothing");
        assertFalse(repeat.body().contains(fresh.substring(6)) || repeat.body().contains(old.substring(6)));
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM idempotency_keys WHERE body LIKE ?", "%" + fresh.substring(6) + "%"),
                "the stored answer holds no secret");
        assertFalse(api.get(ADMIN, "apps/" + app + "/triggers/" + trigger).object().containsKey("secret"));

        String during = enqueue(trigger, "kv", "{\"n\":1}");
        awaitStatus(during, "delivered");
        Receiver.Request first = receiver.at("/rotating").get(0);
        assertTrue(Long.parseLong(first.header("webhook-timestamp")) < expires.getEpochSecond(),
                "the first delivery came after the overlap (" + expires + "): the machine was too slow to test it");
        String[] both = first.header("webhook-signature").split(" ");
        assertEquals(2, both.length, first.header("webhook-signature"));
        assertTrue(verifies(fresh, first, both[0]) && !verifies(old, first, both[0]), "the new secret's signature first");
        assertTrue(verifies(old, first, both[1]) && !verifies(fresh, first, both[1]), "then the old secret's");
        assertTrue(verifies(fresh, first, first.header("webhook-signature")) && verifies(old, first, first.header("webhook-signature")),
                "a receiver holding either secret accepts the delivery");

        // the overlap ends on the database clock, the one this machine's clock also reads
        Eventually.until(WAIT, () -> Instant.now().isAfter(expires.plusSeconds(1)), () -> "overlap until " + expires);
        String after = enqueue(trigger, "kv", "{\"n\":2}");
        awaitStatus(after, "delivered");
        Receiver.Request second = receiver.at("/rotating").get(1);
        assertEquals(after, second.header("webhook-id"));
        assertEquals(1, second.header("webhook-signature").split(" ").length, second.header("webhook-signature"));
        assertTrue(verifies(fresh, second, second.header("webhook-signature")));
        assertFalse(verifies(old, second, second.header("webhook-signature")), "the old secret no longer signs");

        assertEquals(1, api.get(ADMIN, "admin/audit?action=trigger.rotate-secret&targetId=" + trigger).object()
                .getJsonArray("items").size(), "the rotation is audited, its repeat (Idempotent-Replayed) is not");
        // and the replaced secret does not stay stored once it signs nothing
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM triggers WHERE id = ?::uuid AND previous_secret IS NULL",
                trigger) == 1, () -> "the expired secret is still stored");
    }

    @Test
    void onlyAnExistingWebhookTriggerHasASecretToRotate() {
        // this WAR deploys no handler and the server no broker: a webhook trigger made a handler one in the table
        String handler = webhook("kv", "/unused", null).getString("id");
        assertEquals(1, ItDatabase.update("UPDATE triggers SET target_type = 'handler', target = 'recorder' WHERE id = ?::uuid", handler));
        Api.Reply notWebhook = api.call(ADMIN, "POST", "apps/" + app + "/triggers/" + handler + "/secret", null);
        assertEquals(409, notWebhook.status(), notWebhook.toString());
        assertTrue(notWebhook.isProblem(), notWebhook.toString());

        JsonObject hook = webhook("kv", "/unused", null);
        String path = "apps/" + app + "/triggers/" + hook.getString("id") + "/secret";
        Api.Reply withBody = api.post(ADMIN, path, "{\"secret\":\"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"}");
        assertEquals(400, withBody.status(), withBody.toString());
        assertTrue(withBody.isProblem(), withBody.toString());
        Api.Reply unknown = api.call(ADMIN, "POST", "apps/" + app + "/triggers/" + UUID.randomUUID() + "/secret", null);
        assertEquals(404, unknown.status(), unknown.toString());
        Api.Reply otherApp = api.call(ADMIN, "POST", "apps/" + UUID.randomUUID() + "/triggers/" + hook.getString("id") + "/secret",
                null);
        assertEquals(404, otherApp.status(), otherApp.toString());
        Api.Reply producer = api.call(dev.triggeroutbox.support.ItUsers.PRODUCER_A, "POST", path, null);
        assertEquals(403, producer.status(), producer.toString());
        assertFalse(api.get(ADMIN, "apps/" + app + "/triggers/" + hook.getString("id")).object().containsKey("previousSecretExpiresAt"),
                "no refused call rotated anything");
    }

    @Test
    void aRetriedWebhookKeepsItsIdAndIsSignedAfresh() {
        receiver.script("/flaky", n -> Receiver.Answer.of(n < 3 ? 503 : 200));
        JsonObject trigger = webhook("docs", "/flaky", 5);
        String id = enqueue(trigger.getString("id"), "docs", "{\"n\":1}");
        awaitStatus(id, "delivered");
        List<Receiver.Request> attempts = receiver.at("/flaky");
        assertEquals(3, attempts.size());
        for (int i = 0; i < attempts.size(); i++) {
            Receiver.Request a = attempts.get(i);
            assertEquals(id, a.header("webhook-id"), "webhook-id is the row id on every attempt");
            assertEquals(String.valueOf(i + 1), a.header("outbox-attempt"));
            assertTrue(StandardWebhooksVerifier.verify(trigger.getString("secret"), a.header("webhook-id"),
                    a.header("webhook-timestamp"), a.header("webhook-signature"), a.body()));
        }
    }

    @Test
    void goneDisablesTheTriggerAndDeadLettersTheRow() {
        receiver.script("/gone", n -> Receiver.Answer.of(410));
        String trigger = webhook("files", "/gone", 5).getString("id");
        String id = enqueue(trigger, "files", "{}");
        awaitStatus(id, "dead");
        assertEquals(1, receiver.at("/gone").size());
        assertTrue(row(id).getString("lastError").contains("410"), row(id).toString());
        assertFalse(api.get(ADMIN, "apps/" + app + "/triggers/" + trigger).object().getBoolean("enabled"));
    }

    @Test
    void otherClientErrorsArePermanentButTimeoutLikeOnesRetry() {
        receiver.script("/bad", n -> Receiver.Answer.of(400));
        receiver.script("/408", n -> Receiver.Answer.of(n == 1 ? 408 : 200));
        receiver.script("/425", n -> Receiver.Answer.of(n == 1 ? 425 : 200));
        String bad = enqueue(webhook("email", "/bad", 5).getString("id"), "email", "{}");
        String r408 = enqueue(webhook("email", "/408", 5).getString("id"), "email", "{}");
        String r425 = enqueue(webhook("email", "/425", 5).getString("id"), "email", "{}");
        awaitStatus(bad, "dead");
        awaitStatus(r408, "delivered");
        awaitStatus(r425, "delivered");
        assertEquals(1, receiver.at("/bad").size(), "a permanent failure is not retried");
        assertEquals(2, receiver.at("/408").size());
        assertEquals(2, receiver.at("/425").size());
    }

    @Test
    void tooManyRequestsIsRetriedNoEarlierThanRetryAfter() {
        receiver.script("/busy", n -> n == 1 ? new Receiver.Answer(429, Map.of("Retry-After", "2"), "") : Receiver.Answer.of(200));
        String id = enqueue(webhook("pubsub", "/busy", 5).getString("id"), "pubsub", "{}");
        awaitStatus(id, "delivered");
        List<Receiver.Request> attempts = receiver.at("/busy");
        assertEquals(2, attempts.size());
        long gap = Duration.between(attempts.get(0).at(), attempts.get(1).at()).toMillis();
        assertTrue(gap >= 1_900, "retried after " + gap + " ms, before Retry-After: 2");
    }

    @Test
    void redirectsAreNeverFollowed() {
        receiver.script("/moved", n -> new Receiver.Answer(302, Map.of("Location", receiver.url("/elsewhere")), ""));
        receiver.script("/elsewhere", n -> Receiver.Answer.of(200));
        String id = enqueue(webhook("http", "/moved", 2).getString("id"), "http", "{}");
        awaitStatus(id, "dead");
        assertEquals(2, receiver.at("/moved").size());
        assertEquals(0, receiver.at("/elsewhere").size(), "the redirect was followed");
        assertTrue(row(id).getString("lastError").contains("redirect"), row(id).toString());
    }

    @Test
    void aReceiverThatNeverAnswersTimesOutAndEndsAsADeadLetter() {
        receiver.script("/silent", n -> Receiver.NEVER);
        String id = enqueue(webhook("cron", "/silent", 2).getString("id"), "cron", "{}");
        awaitStatus(id, "dead");
        assertEquals(2, receiver.at("/silent").size());
        assertTrue(row(id).getString("lastError").contains("did not answer within 800 ms"), row(id).toString());
    }

    @Test
    void invokeAnswersWithTheWebhooksReplyWhenItComesInTime() {
        receiver.script("/echo", n -> new Receiver.Answer(200, Map.of("Content-Type", "application/json"), "{\"echo\":" + n + "}"));
        String trigger = webhook("http", "/echo", null).getString("id");
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=5000", "{\"payload\":{\"q\":1}}");
        assertEquals(200, r.status(), r.toString());
        assertEquals(1, r.object().getInt("echo"));
        assertEquals("{\"q\":1}", receiver.at("/echo").get(0).body().replace(" ", ""), "the payload is the body");
    }

    @Test
    void anInvokeRepeatedWithItsIdempotencyKeyWaitsForTheFirstAnswerInsteadOfDeliveringAgain() {
        receiver.script("/once", n -> new Receiver.Answer(200, Map.of("Content-Type", "application/json"), "{\"call\":" + n + "}", 300));
        String trigger = webhook("http", "/once", null).getString("id");
        String path = "apps/" + app + "/triggers/" + trigger + "/invoke";
        Map<String, String> key = Map.of("Idempotency-Key", "invoke-" + UUID.randomUUID());
        Api.Reply early = api.call(ADMIN, "POST", path + "?timeoutMs=0", "{\"payload\":{\"q\":1}}", key);
        assertEquals(202, early.status(), early.toString());
        Api.Reply again = api.call(ADMIN, "POST", path + "?timeoutMs=5000", "{\"payload\":{\"q\":1}}", key);
        assertEquals(200, again.status(), again.toString());
        assertEquals(1, again.object().getInt("call"), "the first request's answer");
        assertEquals(1, receiver.at("/once").size(), "delivered once");
        Api.Reply other = api.call(ADMIN, "POST", path + "?timeoutMs=0", "{\"payload\":{\"q\":2}}", key);
        assertEquals(422, other.status(), "the key with another body: " + other);
        assertTrue(other.isProblem(), other.toString());
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app));
    }

    @Test
    void invokeAnswers202WithALocationWhenTheReplyIsLate() {
        receiver.script("/slow", n -> new Receiver.Answer(200, Map.of(), "{\"late\":true}", 500));
        String trigger = webhook("http", "/slow", null).getString("id");
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=50", "{\"payload\":{}}");
        assertEquals(202, r.status(), r.toString());
        assertNotNull(r.location());
        String path = r.location().substring(r.location().indexOf("/api/v1/") + "/api/v1/".length());
        Eventually.until(WAIT, () -> api.get(ADMIN, path).status() == 200, () -> api.get(ADMIN, path).toString());
        assertTrue(api.get(ADMIN, path).object().getBoolean("late"));
        assertEquals(404, api.get(dev.triggeroutbox.support.ItUsers.PRODUCER_B, path).status(), "another app's reply is not found");
    }

    @Test
    void invokeOfATargetThatFailsIsA502Problem() {
        receiver.script("/refuses", n -> Receiver.Answer.of(403));
        String trigger = webhook("http", "/refuses", null).getString("id");
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=5000", "{\"payload\":{}}");
        assertEquals(502, r.status(), r.toString());
        assertTrue(r.isProblem(), r.toString());
        assertTrue(r.object().getString("detail").contains("403"), r.toString());
        Api.Reply bad = api.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=lots", "{\"payload\":{}}");
        assertEquals(400, bad.status());
        assertTrue(bad.isProblem());
    }

    @Test
    void privateAndLoopbackAddressesAreRefusedAtCreation() {
        long before = ItDatabase.count("SELECT count(*) FROM triggers WHERE app_id = ?", app);
        for (String url : List.of("http://127.0.0.2/hook", "http://10.1.2.3/", "http://192.168.0.1/",
                "http://172.16.5.4/", "http://169.254.169.254/latest/meta-data", "http://100.64.0.1/", "http://[::1]/",
                "http://[fd00::1]/", "http://[fe80::1]/", "http://[::ffff:10.0.0.1]/", "http://2130706434/",
                "http://0x7f.0.0.2/", "http://0177.0.0.2/", "http://0.0.0.0/")) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers",
                    "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url + "\"}}");
            assertEquals(422, r.status(), url + " -> " + r);
            assertTrue(r.isProblem(), url + " -> " + r);
            assertNotNull(r.object().getString("detail"));
        }
        assertEquals(before, ItDatabase.count("SELECT count(*) FROM triggers WHERE app_id = ?", app));
    }

    @Test
    void anAllowListedLoopbackIsAllowedButTheRestOfLoopbackIsNot() {
        assertEquals(201, api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"" + receiver.url("/ok") + "\"}}").status());
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"http://127.0.0.3:9/\"}}");
        assertEquals(422, r.status());
        assertNull(r.location());
    }
}
