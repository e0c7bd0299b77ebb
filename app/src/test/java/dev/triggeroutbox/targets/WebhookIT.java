package dev.triggeroutbox.targets;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import dev.triggeroutbox.testkit.StandardWebhooksVerifier;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
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
 * Standard Webhooks spec, and the delivery semantics of every kind of answer. Calls go through the typed client;
 * the few it cannot send (a body on the rotation, a timeout that is no number) and a refusal's headers are raw.
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
    private OutboxClient client;
    private OutboxApi admin;
    private Receiver receiver;
    /** Each test its own app, so fan-out meets only that test's triggers. */
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        client = ItClients.client(base, ADMIN);
        admin = ItClients.restClient(base, ADMIN);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        ItClients.close(admin);
        client.close();
        api.close();
    }

    /** A webhook trigger of the test's app for its own source kind; the creation answer (with the secret). */
    private OutboxClient.Trigger webhook(String kind, String path, Integer maxAttempts) {
        TriggerDefinition definition = TriggerDefinition.webhook(kind, URI.create(receiver.url(path)));
        return client.createTrigger(app, maxAttempts == null ? definition : definition.maxAttempts(maxAttempts),
                Call.plain());
    }

    private UUID enqueue(UUID trigger, String kind, JsonValue payload) {
        return client.enqueue(NewRow.of(app, kind, trigger, payload));
    }

    private static JsonObject n(int n) {
        return Json.createObjectBuilder().add("n", n).build();
    }

    private OutboxClient.RowStatus row(UUID id) {
        return client.status(id);
    }

    private void awaitStatus(UUID id, String status) {
        Eventually.until(WAIT, () -> status.equals(row(id).status()), () -> row(id).json().toString());
    }

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    @Test
    void publishReachesEachMatchingWebhookOnceSignedWithItsSecret() {
        receiver.script("/one", n -> Receiver.Answer.of(200));
        receiver.script("/two", n -> new Receiver.Answer(204, Map.of(), ""));
        OutboxClient.Trigger one = webhook("kv", "/one", null);
        OutboxClient.Trigger two = webhook("kv", "/two", null);
        assertTrue(one.secret().startsWith("whsec_"));
        assertFalse(client.trigger(app, one.id()).json().containsKey("secret"),
                "the secret is shown once, at creation");

        UUID root = UUID.randomUUID();
        JsonObject payload = Json.createObjectBuilder().add("key", "k1")
                .add("value", Json.createArrayBuilder().add(1).add(2).add(3)).build();
        List<OutboxClient.Written> published = client.publish(app, new Event("kv", payload, root, 2, null));
        Eventually.until(WAIT, () -> receiver.at("/one").size() == 1 && receiver.at("/two").size() == 1,
                () -> receiver.at("/one").size() + " / " + receiver.at("/two").size());
        for (OutboxClient.Written row : published) {
            awaitStatus(row.id(), "delivered");
        }

        for (var pair : List.of(Map.entry(one, receiver.at("/one").get(0)),
                Map.entry(two, receiver.at("/two").get(0)))) {
            Receiver.Request got = pair.getValue();
            OutboxClient.Trigger trigger = pair.getKey();
            assertTrue(StandardWebhooksVerifier.verify(trigger.secret(), got.header("webhook-id"),
                    got.header("webhook-timestamp"), got.header("webhook-signature"), got.body()),
                    "signature of " + got);
            assertFalse(StandardWebhooksVerifier.verify(one == trigger ? two.secret() : one.secret(),
                    got.header("webhook-id"), got.header("webhook-timestamp"), got.header("webhook-signature"),
                    got.body()),
                    "another trigger's secret must not verify");
            assertTrue(got.body().contains("\"key\"") && got.body().contains("k1"), got.body());
            assertEquals("application/json", got.header("content-type"));
            assertEquals(app.toString(), got.header("outbox-app-id"));
            assertEquals("kv", got.header("outbox-source-kind"));
            assertEquals(trigger.id().toString(), got.header("outbox-trigger-id"));
            assertEquals("1", got.header("outbox-attempt"));
            assertEquals(root.toString(), got.header("outbox-root-execution-id"));
            assertEquals("2", got.header("outbox-trigger-depth"));
        }
        assertFalse(receiver.at("/one").get(0).header("webhook-id")
                .equals(receiver.at("/two").get(0).header("webhook-id")));
    }

    private static boolean verifies(String secret, Receiver.Request got, String signatures) {
        return StandardWebhooksVerifier.verify(secret, got.header("webhook-id"), got.header("webhook-timestamp"),
                signatures,
                got.body());
    }

    /** The IT server's overlap is short (outbox.webhook.secret-overlap-ms=6000 in pom.xml), so the test sees it end. */
    @Test
    void aRotatedSecretIsAnsweredOnceAndSignsBesideTheOldOneUntilTheOverlapEnds() {
        receiver.script("/rotating", n -> Receiver.Answer.of(204));
        OutboxClient.Trigger created = webhook("kv", "/rotating", null);
        UUID trigger = created.id();
        String old = created.secret();
        Call key = Call.idempotent("rotate-" + trigger);

        OutboxClient.Trigger rotated = client.rotateSecret(app, trigger, key);
        String fresh = rotated.secret();
        assertTrue(fresh.startsWith("whsec_"), fresh);
        assertNotEquals(old, fresh);
        assertEquals(trigger, rotated.id());
        Instant expires = OffsetDateTime.parse(rotated.json().getString("previousSecretExpiresAt")).toInstant();

        OutboxClient.Trigger repeat = client.rotateSecret(app, trigger, key);
        assertFalse(repeat.json().containsKey("secret"),
                "a repeat answers the trigger without the secret: " + repeat.json());
        assertEquals(rotated.json().getString("previousSecretExpiresAt"),
                repeat.json().getString("previousSecretExpiresAt"),
                "a repeat rotates nothing");
        assertFalse(repeat.json().toString().contains(fresh.substring(6))
                || repeat.json().toString().contains(old.substring(6)));
        assertEquals(0,
                ItDatabase.count("SELECT count(*) FROM idempotency_keys WHERE body LIKE ?",
                        "%" + fresh.substring(6) + "%"),
                "the stored answer holds no secret");
        assertFalse(client.trigger(app, trigger).json().containsKey("secret"));

        UUID during = enqueue(trigger, "kv", n(1));
        awaitStatus(during, "delivered");
        Receiver.Request first = receiver.at("/rotating").get(0);
        assertTrue(Long.parseLong(first.header("webhook-timestamp")) < expires.getEpochSecond(),
                "the first delivery came after the overlap (" + expires + "): the machine was too slow to test it");
        String[] both = first.header("webhook-signature").split(" ");
        assertEquals(2, both.length, first.header("webhook-signature"));
        assertTrue(verifies(fresh, first, both[0]) && !verifies(old, first, both[0]),
                "the new secret's signature first");
        assertTrue(verifies(old, first, both[1]) && !verifies(fresh, first, both[1]), "then the old secret's");
        assertTrue(
                verifies(fresh, first, first.header("webhook-signature"))
                        && verifies(old, first, first.header("webhook-signature")),
                "a receiver holding either secret accepts the delivery");

        // the overlap ends on the database clock, the one this machine's clock also reads
        Eventually.until(WAIT, () -> Instant.now().isAfter(expires.plusSeconds(1)), () -> "overlap until " + expires);
        UUID after = enqueue(trigger, "kv", n(2));
        awaitStatus(after, "delivered");
        Receiver.Request second = receiver.at("/rotating").get(1);
        assertEquals(after.toString(), second.header("webhook-id"));
        assertEquals(1, second.header("webhook-signature").split(" ").length, second.header("webhook-signature"));
        assertTrue(verifies(fresh, second, second.header("webhook-signature")));
        assertFalse(verifies(old, second, second.header("webhook-signature")), "the old secret no longer signs");

        assertEquals(1,
                admin.audit("trigger.rotate-secret", trigger.toString(), null, null).getJsonArray("items").size(),
                "the rotation is audited, its repeat (Idempotent-Replayed) is not");
        // and the replaced secret does not stay stored once it signs nothing
        Eventually.until(WAIT,
                () -> ItDatabase.count("SELECT count(*) FROM triggers WHERE id = ? AND previous_secret IS NULL",
                        trigger) == 1,
                () -> "the expired secret is still stored");
    }

    @Test
    void onlyAnExistingWebhookTriggerHasASecretToRotate() {
        // this WAR deploys no handler and the server no broker: a webhook trigger made a handler one in the table
        UUID handler = webhook("kv", "/unused", null).id();
        assertEquals(1, ItDatabase
                .update("UPDATE triggers SET target_type = 'handler', target = 'recorder' WHERE id = ?", handler));
        assertRefused(409, "not-a-webhook", () -> client.rotateSecret(app, handler));

        UUID hook = webhook("kv", "/unused", null).id();
        String path = "apps/" + app + "/triggers/" + hook + "/secret";
        // a body is more than the client sends: written by hand
        Api.Reply withBody = api.post(ADMIN, path, "{\"secret\":\"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"}");
        assertEquals(400, withBody.status(), withBody.toString());
        assertTrue(withBody.isProblem(), withBody.toString());
        assertEquals(404,
                assertThrows(ProblemException.class, () -> client.rotateSecret(app, UUID.randomUUID())).status());
        assertEquals(404,
                assertThrows(ProblemException.class, () -> client.rotateSecret(UUID.randomUUID(), hook)).status());
        try (OutboxClient producer = ItClients.client(base, PRODUCER_A)) {
            assertEquals(403, assertThrows(ProblemException.class, () -> producer.rotateSecret(app, hook)).status());
        }
        assertFalse(client.trigger(app, hook).json().containsKey("previousSecretExpiresAt"),
                "no refused call rotated anything");
    }

    @Test
    void aRetriedWebhookKeepsItsIdAndIsSignedAfresh() {
        receiver.script("/flaky", n -> Receiver.Answer.of(n < 3 ? 503 : 200));
        OutboxClient.Trigger trigger = webhook("docs", "/flaky", 5);
        UUID id = enqueue(trigger.id(), "docs", n(1));
        awaitStatus(id, "delivered");
        List<Receiver.Request> attempts = receiver.at("/flaky");
        assertEquals(3, attempts.size());
        for (int i = 0; i < attempts.size(); i++) {
            Receiver.Request a = attempts.get(i);
            assertEquals(id.toString(), a.header("webhook-id"), "webhook-id is the row id on every attempt");
            assertEquals(String.valueOf(i + 1), a.header("outbox-attempt"));
            assertTrue(StandardWebhooksVerifier.verify(trigger.secret(), a.header("webhook-id"),
                    a.header("webhook-timestamp"), a.header("webhook-signature"), a.body()));
        }
    }

    @Test
    void goneDisablesTheTriggerAndDeadLettersTheRow() {
        receiver.script("/gone", n -> Receiver.Answer.of(410));
        UUID trigger = webhook("files", "/gone", 5).id();
        UUID id = enqueue(trigger, "files", JsonValue.EMPTY_JSON_OBJECT);
        awaitStatus(id, "dead");
        assertEquals(1, receiver.at("/gone").size());
        assertTrue(row(id).lastError().contains("410"), row(id).json().toString());
        assertFalse(client.trigger(app, trigger).enabled());
    }

    @Test
    void otherClientErrorsArePermanentButTimeoutLikeOnesRetry() {
        receiver.script("/bad", n -> Receiver.Answer.of(400));
        receiver.script("/408", n -> Receiver.Answer.of(n == 1 ? 408 : 200));
        receiver.script("/425", n -> Receiver.Answer.of(n == 1 ? 425 : 200));
        UUID bad = enqueue(webhook("email", "/bad", 5).id(), "email", JsonValue.EMPTY_JSON_OBJECT);
        UUID r408 = enqueue(webhook("email", "/408", 5).id(), "email", JsonValue.EMPTY_JSON_OBJECT);
        UUID r425 = enqueue(webhook("email", "/425", 5).id(), "email", JsonValue.EMPTY_JSON_OBJECT);
        awaitStatus(bad, "dead");
        awaitStatus(r408, "delivered");
        awaitStatus(r425, "delivered");
        assertEquals(1, receiver.at("/bad").size(), "a permanent failure is not retried");
        assertEquals(2, receiver.at("/408").size());
        assertEquals(2, receiver.at("/425").size());
    }

    @Test
    void tooManyRequestsIsRetriedNoEarlierThanRetryAfter() {
        receiver.script("/busy",
                n -> n == 1 ? new Receiver.Answer(429, Map.of("Retry-After", "2"), "") : Receiver.Answer.of(200));
        UUID id = enqueue(webhook("pubsub", "/busy", 5).id(), "pubsub", JsonValue.EMPTY_JSON_OBJECT);
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
        UUID id = enqueue(webhook("http", "/moved", 2).id(), "http", JsonValue.EMPTY_JSON_OBJECT);
        awaitStatus(id, "dead");
        assertEquals(2, receiver.at("/moved").size());
        assertEquals(0, receiver.at("/elsewhere").size(), "the redirect was followed");
        assertTrue(row(id).lastError().contains("redirect"), row(id).json().toString());
    }

    @Test
    void aReceiverThatNeverAnswersTimesOutAndEndsAsADeadLetter() {
        receiver.script("/silent", n -> Receiver.NEVER);
        UUID id = enqueue(webhook("cron", "/silent", 2).id(), "cron", JsonValue.EMPTY_JSON_OBJECT);
        awaitStatus(id, "dead");
        assertEquals(2, receiver.at("/silent").size());
        assertTrue(row(id).lastError().contains("did not answer within 800 ms"), row(id).json().toString());
    }

    @Test
    void invokeAnswersWithTheWebhooksReplyWhenItComesInTime() {
        receiver.script("/echo",
                n -> new Receiver.Answer(200, Map.of("Content-Type", "application/json"), "{\"echo\":" + n + "}"));
        UUID trigger = webhook("http", "/echo", null).id();
        OutboxClient.Invoked r = client.invoke(app, trigger, Json.createObjectBuilder().add("q", 1).build(),
                Duration.ofSeconds(5),
                Call.plain());
        assertEquals(200, r.status(), r.toString());
        assertEquals(1, json(r.body()).getInt("echo"));
        assertEquals("{\"q\":1}", receiver.at("/echo").get(0).body().replace(" ", ""), "the payload is the body");
    }

    @Test
    void anInvokeRepeatedWithItsIdempotencyKeyWaitsForTheFirstAnswerInsteadOfDeliveringAgain() {
        receiver.script("/once",
                n -> new Receiver.Answer(200, Map.of("Content-Type", "application/json"), "{\"call\":" + n + "}", 300));
        UUID trigger = webhook("http", "/once", null).id();
        Call key = Call.idempotent("invoke-" + UUID.randomUUID());
        JsonObject q1 = Json.createObjectBuilder().add("q", 1).build();
        OutboxClient.Invoked early = client.invoke(app, trigger, q1, Duration.ZERO, key);
        assertEquals(202, early.status(), early.toString());
        OutboxClient.Invoked again = client.invoke(app, trigger, q1, Duration.ofSeconds(5), key);
        assertEquals(200, again.status(), again.toString());
        assertEquals(1, json(again.body()).getInt("call"), "the first request's answer");
        assertEquals(1, receiver.at("/once").size(), "delivered once");
        assertRefused(422, "idempotency-key-reused",
                () -> client.invoke(app, trigger, Json.createObjectBuilder().add("q", 2).build(), Duration.ZERO, key));
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app));
    }

    @Test
    void invokeAnswers202WithALocationWhenTheReplyIsLate() {
        receiver.script("/slow", n -> new Receiver.Answer(200, Map.of(), "{\"late\":true}", 500));
        UUID trigger = webhook("http", "/slow", null).id();
        OutboxClient.Invoked r = client.invoke(app, trigger, JsonValue.EMPTY_JSON_OBJECT, Duration.ofMillis(50),
                Call.plain());
        assertEquals(202, r.status(), r.toString());
        assertNotNull(r.later());
        Eventually.until(WAIT, () -> client.reply(r.later()).answered(), () -> client.reply(r.later()).toString());
        assertTrue(json(client.reply(r.later()).body()).getBoolean("late"));
        try (OutboxClient otherApp = ItClients.client(base, PRODUCER_B)) {
            assertEquals(404, assertThrows(ProblemException.class, () -> otherApp.reply(r.later())).status(),
                    "another app's reply is not found");
        }
    }

    @Test
    void invokeOfATargetThatFailsIsA502Problem() {
        receiver.script("/refuses", n -> Receiver.Answer.of(403));
        UUID trigger = webhook("http", "/refuses", null).id();
        ProblemException r = assertRefused(502, "target-failed",
                () -> client.invoke(app, trigger, JsonValue.EMPTY_JSON_OBJECT, Duration.ofSeconds(5), Call.plain()));
        assertTrue(r.detail().contains("403"), r.getMessage());
        // a timeout that is no number is more than the client sends
        Api.Reply bad = api.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=lots",
                "{\"payload\":{}}");
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
            ProblemException r = assertRefused(422, "webhook-address-refused",
                    () -> client.createTrigger(app, TriggerDefinition.webhook("kv", URI.create(url)), Call.plain()));
            assertNotNull(r.detail(), url);
        }
        assertEquals(before, ItDatabase.count("SELECT count(*) FROM triggers WHERE app_id = ?", app));
    }

    @Test
    void anAllowListedLoopbackIsAllowedButTheRestOfLoopbackIsNot() {
        assertNotNull(client
                .createTrigger(app, TriggerDefinition.webhook("kv", URI.create(receiver.url("/ok"))), Call.plain())
                .id());
        // by hand: the refusal's headers are the point
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"http://127.0.0.3:9/\"}}");
        assertEquals(422, r.status());
        assertNull(r.location());
    }
}
