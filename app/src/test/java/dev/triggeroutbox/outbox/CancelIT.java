package dev.triggeroutbox.outbox;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxApi;
import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Cancel, one row and in bulk, against a real webhook receiver: pending and scheduled rows are never delivered, a
 * row in flight finishes its attempt and then ends cancelled (or delivered, when that attempt delivered), never
 * retried; other apps' rows are out of reach; the bulk call stops at 10,000 rows and says there are more. Calls go
 * through the typed client (OutboxApi for the bulk call and the admin reads); refusals it cannot send, and the 202 of
 * a row in flight, are raw requests.
 */
@ExtendWith(ArquillianExtension.class)
class CancelIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private OutboxClient admin;
    private OutboxApi adminApi;
    private OutboxClient producer;
    private Receiver receiver;

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        admin = ItClients.client(base, ADMIN);
        adminApi = ItClients.restClient(base, ADMIN);
        producer = ItClients.client(base, PRODUCER_A);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        try {
            pause(false);
        } finally {
            receiver.close();
            producer.close();
            ItClients.close(adminApi);
            admin.close();
            api.close();
        }
    }

    private UUID webhook(UUID app, String path, int maxAttempts) {
        return admin.createTrigger(app,
                TriggerDefinition.webhook("kv", URI.create(receiver.url(path))).maxAttempts(maxAttempts),
                Call.plain()).id();
    }

    private UUID enqueue(UUID app, UUID trigger, String n, OffsetDateTime deliverAt) {
        return producer
                .enqueue(new NewRow(app, "kv", trigger, Json.createObjectBuilder().add("n", n).build(), deliverAt));
    }

    private String status(UUID id) {
        return admin.status(id).status();
    }

    private void awaitStatus(UUID id, String status) {
        Eventually.until(WAIT, () -> status.equals(status(id)), () -> admin.status(id).json().toString());
    }

    /** Pauses or resumes dispatching, and waits until every node says so (a node reads the switch on its tick). */
    private void pause(boolean paused) {
        if (paused) {
            admin.pause();
        } else {
            admin.resume();
        }
        Eventually.until(WAIT, () -> adminApi.nodes().getJsonArray("items").getValuesAs(JsonObject.class)
                .stream().filter(n -> "alive".equals(n.getString("status")))
                .allMatch(n -> n.getBoolean("paused") == paused),
                () -> adminApi.nodes().toString());
    }

    private static void assertProblem(int status, String type, Api.Reply r) {
        assertEquals(status, r.status(), r.toString());
        assertTrue(r.isProblem(), r.toString());
        if (type != null) {
            assertTrue(r.object().getString("type").endsWith(type), r.toString());
        }
    }

    @Test
    void aPendingRowCancelledIsNeverDelivered() {
        UUID app = APP_A;
        UUID trigger = webhook(app, "/pending", 3);
        receiver.script("/pending", n -> Receiver.Answer.of(204));
        pause(true);
        UUID cancelled = enqueue(app, trigger, "cancelled", null);
        assertEquals("pending", status(cancelled));

        OutboxClient.RowStatus r = producer.cancel(cancelled);
        assertEquals("cancelled", r.status());
        assertFalse(r.json().containsKey("node"), "the producer's view has no node");
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE id = ?", cancelled));
        assertEquals("cancelled",
                ItDatabase.text("SELECT outcome FROM delivery_history WHERE outbox_id = ?", cancelled));

        // once dispatching resumes, a row enqueued after it is delivered; the cancelled one, due earlier, never is
        pause(false);
        UUID later = enqueue(app, trigger, "later", null);
        awaitStatus(later, "delivered");
        assertEquals(1, receiver.at("/pending").size(), receiver.at("/pending").toString());
        assertTrue(receiver.at("/pending").get(0).body().contains("later"));

        // a repeat answers the same; a delivered row is not cancellable
        assertEquals("cancelled", producer.cancel(cancelled).status());
        assertRefused(409, "not-cancellable", () -> producer.cancel(later));
        assertEquals("delivered", status(later));
    }

    @Test
    void aScheduledRowIsCancelledAtOnceAndOtherAppsCannotReachIt() {
        UUID trigger = webhook(APP_A, "/scheduled", 3);
        UUID row = enqueue(APP_A, trigger, "scheduled", OffsetDateTime.now().plusHours(1));
        assertEquals("scheduled", status(row));

        // another app's row answers as an unknown one, and stays as it was
        try (OutboxClient otherApp = ItClients.client(base, PRODUCER_B)) {
            assertRefused(404, "not-found", () -> otherApp.cancel(row));
        }
        assertEquals("scheduled", status(row));
        assertRefused(404, "not-found", () -> producer.cancel(UUID.randomUUID()));
        // by hand what the client cannot send: an id that is no UUID, and a forged request
        assertProblem(404, "not-found", api.post(PRODUCER_A, "outbox/not-a-uuid/cancel", null)); // as GET /outbox/{id} answers it
        // a body-less POST without Content-Type or X-Requested-By is refused (cross-site request rule)
        Api.Reply forged = api.call(PRODUCER_A, "POST", "outbox/" + row + "/cancel", null,
                Map.of("X-Requested-By", ""));
        assertProblem(403, "cross-site-request", forged);
        assertEquals("scheduled", status(row));

        // the admin reaches every app
        assertEquals("cancelled", admin.cancel(row).status());
        assertEquals("cancelled", adminApi.adminRow(row).getJsonObject("row").getString("status"));
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE id = ?", row));
    }

    /**
     * A slow receiver holds the first attempt while the row is cancelled: the cancel answers 202, the attempt
     * finishes (a 500, which would be retried), and the row ends cancelled without a second attempt. The same with
     * an attempt that delivers: the row ends delivered, as the API says.
     */
    @Test
    void aRowInFlightFinishesItsAttemptThenStaysCancelledUnlessItDelivered() throws Exception {
        for (int answer : new int[] {500, 204}) {
            String path = "/in-flight-" + answer;
            CountDownLatch cancelled = new CountDownLatch(1);
            // the webhook timeout of the IT server is 800 ms: the receiver answers within 700 whatever happens
            receiver.script(path, n -> {
                try {
                    cancelled.await(700, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Receiver.Answer.of(answer);
            });
            UUID trigger = webhook(APP_A, path, 3);
            UUID row = enqueue(APP_A, trigger, "in flight", null);
            Eventually.until(WAIT, () -> receiver.at(path).size() == 1, () -> receiver.at(path).size() + " requests");

            // by hand: the 202 (rather than 200) is the point, and the client takes either
            Api.Reply r = api.post(PRODUCER_A, "outbox/" + row + "/cancel", null);
            cancelled.countDown();
            assertEquals(202, r.status(), r.toString());
            assertEquals("in_flight", r.object().getString("status"));
            assertTrue(r.object().getBoolean("cancelRequested"), r.toString());

            String end = answer == 204 ? "delivered" : "cancelled";
            awaitStatus(row, end);
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE id = ?", row), "nothing left to retry");
            assertEquals(1, receiver.at(path).size(), "one attempt only");
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM delivery_history WHERE outbox_id = ?", row));
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE id = ?", row));
            if (answer == 204) {
                assertRefused(409, "not-cancellable", () -> producer.cancel(row));
            } else {
                assertEquals("cancelled", producer.cancel(row).status());
            }
        }
    }

    /** An invoke waiting on a row that gets cancelled answers 409 (cancelled) rather than waiting out its time. */
    @Test
    void anInvokeWaitingOnACancelledRowAnswers409() throws Exception {
        UUID app = APP_A;
        UUID trigger = webhook(app, "/invoke", 1);
        receiver.script("/invoke", n -> Receiver.Answer.of(200));
        pause(true);
        CompletableFuture<OutboxClient.Invoked> invoke = CompletableFuture
                .supplyAsync(() -> producer.invoke(app, trigger,
                        Json.createObjectBuilder().add("q", 1).build(), Duration.ofSeconds(20), Call.plain()));
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE trigger_id = ?", trigger) == 1,
                () -> "no invoke row yet");
        UUID row = UUID.fromString(ItDatabase.text("SELECT id::text FROM outbox WHERE trigger_id = ?", trigger));
        assertEquals("cancelled", producer.cancel(row).status());
        assertRefused(409, "cancelled", () -> {
            try {
                invoke.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw e.getCause();
            }
        });
        assertTrue(receiver.at("/invoke").isEmpty());
    }

    @Test
    void bulkCancelStopsAt10000RowsSaysMoreAndIsAudited() {
        UUID app = UUID.randomUUID();
        // 10,002 rows written directly, due in a day (so nothing claims them meanwhile), one of them older
        ItDatabase.update("""
                INSERT INTO outbox (id, app_id, source_kind, payload, next_attempt_at, created_at)
                SELECT gen_random_uuid(), ?::uuid, 'kv', '{}', now() + interval '1 day',
                       CASE WHEN g = 1 THEN now() - interval '2 hours' ELSE now() END
                FROM generate_series(1, 10002) g""", app);

        // the refusals as written by hand: filters that are wrong or missing, and a producer's call
        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{}"));
        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{\"all\":false}"));
        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"nope\"}"));
        assertProblem(400, null,
                api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"" + app + "\",\"olderThan\":\"yesterday\"}"));
        assertProblem(400, null,
                api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"" + app + "\",\"colour\":\"red\"}"));
        assertEquals(403, api.post(PRODUCER_A, "admin/outbox/cancel", "{\"appId\":\"" + app + "\"}").status());
        assertEquals(10_002, ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?::uuid", app),
                "refusals change nothing");

        // by age first: only the old row matches
        JsonObject old = adminApi
                .cancelAll(Json.createObjectBuilder().add("appId", app.toString()).add("sourceKind", "kv")
                        .add("olderThan", OffsetDateTime.now().minusHours(1).toString()).build());
        assertEquals(1, old.getInt("cancelled"), old.toString());
        assertFalse(old.getBoolean("more"));

        JsonObject byApp = Json.createObjectBuilder().add("appId", app.toString()).build();
        JsonObject first = adminApi.cancelAll(byApp);
        assertEquals(10_000, first.getInt("cancelled"), first.toString());
        assertEquals(0, first.getInt("cancelRequested"));
        assertTrue(first.getBoolean("more"));
        JsonObject audited = adminApi.audit("outbox.bulk-cancel", null, 1, null).getJsonArray("items").getJsonObject(0);
        assertEquals(10_000, audited.getInt("affected"), audited.toString());
        assertEquals(app.toString(), audited.getJsonObject("filter").getString("appId"), audited.toString());
        assertEquals(ADMIN, audited.getString("principal"), audited.toString());

        JsonObject rest = adminApi.cancelAll(byApp);
        assertEquals(1, rest.getInt("cancelled"), rest.toString());
        assertFalse(rest.getBoolean("more"));
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?::uuid", app));
        assertEquals(10_002, ItDatabase.count(
                "SELECT count(*) FROM delivery_history WHERE app_id = ?::uuid AND outcome = 'cancelled'", app));
    }
}
