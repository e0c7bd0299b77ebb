package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.ItUsers.APP_A;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_A;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
 * retried; other apps' rows are out of reach; the bulk call stops at 10,000 rows and says there are more.
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
    private Receiver receiver;

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        try {
            pause(false);
        } finally {
            receiver.close();
            api.close();
        }
    }

    private String webhook(UUID app, String path, int maxAttempts) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"kv","target":{"type":"webhook","url":"%s"},"maxAttempts":%d}""".formatted(receiver.url(path), maxAttempts));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private String enqueue(String user, UUID app, String trigger, String payload, OffsetDateTime deliverAt) {
        Api.Reply r = api.post(user, "outbox", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":%s%s}""".formatted(app, trigger, payload,
                deliverAt == null ? "" : ",\"deliverAt\":\"" + deliverAt + "\""));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private Api.Reply cancel(String user, String id) {
        return api.post(user, "outbox/" + id + "/cancel", null);
    }

    private String status(String id) {
        return api.get(ADMIN, "outbox/" + id).object().getString("status");
    }

    private void awaitStatus(String id, String status) {
        Eventually.until(WAIT, () -> status.equals(status(id)), () -> api.get(ADMIN, "outbox/" + id).toString());
    }

    /** Pauses or resumes dispatching, and waits until every node says so (a node reads the switch on its tick). */
    private void pause(boolean paused) {
        assertEquals(204, api.post(ADMIN, "admin/dispatcher/" + (paused ? "pause" : "resume"), null).status());
        Eventually.until(WAIT, () -> api.get(ADMIN, "admin/nodes").object().getJsonArray("items").getValuesAs(JsonObject.class)
                .stream().filter(n -> "alive".equals(n.getString("status"))).allMatch(n -> n.getBoolean("paused") == paused),
                () -> api.get(ADMIN, "admin/nodes").toString());
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
        String trigger = webhook(app, "/pending", 3);
        receiver.script("/pending", n -> Receiver.Answer.of(204));
        pause(true);
        String cancelled = enqueue(PRODUCER_A, app, trigger, "{\"n\":\"cancelled\"}", null);
        assertEquals("pending", status(cancelled));

        Api.Reply r = cancel(PRODUCER_A, cancelled);
        assertEquals(200, r.status(), r.toString());
        assertEquals("cancelled", r.object().getString("status"));
        assertFalse(r.object().containsKey("node"), "the producer's view has no node");
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE id = ?::uuid", cancelled));
        assertEquals("cancelled", ItDatabase.text("SELECT outcome FROM delivery_history WHERE outbox_id = ?::uuid", cancelled));

        // once dispatching resumes, a row enqueued after it is delivered; the cancelled one, due earlier, never is
        pause(false);
        String later = enqueue(PRODUCER_A, app, trigger, "{\"n\":\"later\"}", null);
        awaitStatus(later, "delivered");
        assertEquals(1, receiver.at("/pending").size(), receiver.at("/pending").toString());
        assertTrue(receiver.at("/pending").get(0).body().contains("later"));

        // a repeat answers the same; a delivered row is not cancellable
        Api.Reply again = cancel(PRODUCER_A, cancelled);
        assertEquals(200, again.status(), again.toString());
        assertEquals("cancelled", again.object().getString("status"));
        assertProblem(409, "not-cancellable", cancel(PRODUCER_A, later));
        assertEquals("delivered", status(later));
    }

    @Test
    void aScheduledRowIsCancelledAtOnceAndOtherAppsCannotReachIt() {
        String trigger = webhook(APP_A, "/scheduled", 3);
        String row = enqueue(PRODUCER_A, APP_A, trigger, "{}", OffsetDateTime.now().plusHours(1));
        assertEquals("scheduled", status(row));

        // another app's row answers as an unknown one, and stays as it was
        assertProblem(404, null, cancel(PRODUCER_B, row));
        assertEquals("scheduled", status(row));
        assertProblem(404, null, cancel(PRODUCER_A, UUID.randomUUID().toString()));
        assertProblem(404, "not-found", cancel(PRODUCER_A, "not-a-uuid")); // as GET /outbox/{id} answers it
        // a body-less POST without Content-Type or X-Requested-By is refused (cross-site request rule)
        Api.Reply forged = api.call(PRODUCER_A, "POST", "outbox/" + row + "/cancel", null, Map.of("X-Requested-By", ""));
        assertProblem(403, "cross-site-request", forged);
        assertEquals("scheduled", status(row));

        // the admin reaches every app
        Api.Reply r = cancel(ADMIN, row);
        assertEquals(200, r.status(), r.toString());
        assertEquals("cancelled", r.object().getString("status"));
        assertEquals("cancelled", api.get(ADMIN, "admin/rows/" + row).object().getJsonObject("row").getString("status"));
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE id = ?::uuid", row));
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
            String trigger = webhook(APP_A, path, 3);
            String row = enqueue(PRODUCER_A, APP_A, trigger, "{}", null);
            Eventually.until(WAIT, () -> receiver.at(path).size() == 1, () -> receiver.at(path).size() + " requests");

            Api.Reply r = cancel(PRODUCER_A, row);
            cancelled.countDown();
            assertEquals(202, r.status(), r.toString());
            assertEquals("in_flight", r.object().getString("status"));
            assertTrue(r.object().getBoolean("cancelRequested"), r.toString());

            String end = answer == 204 ? "delivered" : "cancelled";
            awaitStatus(row, end);
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE id = ?::uuid", row), "nothing left to retry");
            assertEquals(1, receiver.at(path).size(), "one attempt only");
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM delivery_history WHERE outbox_id = ?::uuid", row));
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE id = ?::uuid", row));
            Api.Reply again = cancel(PRODUCER_A, row);
            assertEquals(answer == 204 ? 409 : 200, again.status(), again.toString());
        }
    }

    /** An invoke waiting on a row that gets cancelled answers 409 (cancelled) rather than waiting out its time. */
    @Test
    void anInvokeWaitingOnACancelledRowAnswers409() throws Exception {
        UUID app = APP_A;
        String trigger = webhook(app, "/invoke", 1);
        receiver.script("/invoke", n -> Receiver.Answer.of(200));
        pause(true);
        CompletableFuture<Api.Reply> invoke = CompletableFuture.supplyAsync(() -> api.post(PRODUCER_A,
                "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=20000", "{\"payload\":{\"q\":1}}"));
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE trigger_id = ?::uuid", trigger) == 1,
                () -> "no invoke row yet");
        String row = ItDatabase.text("SELECT id::text FROM outbox WHERE trigger_id = ?::uuid", trigger);
        assertEquals(200, cancel(PRODUCER_A, row).status());
        Api.Reply answered = invoke.get(10, TimeUnit.SECONDS);
        assertProblem(409, "cancelled", answered);
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

        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{}"));
        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{\"all\":false}"));
        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"nope\"}"));
        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"" + app + "\",\"olderThan\":\"yesterday\"}"));
        assertProblem(400, null, api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"" + app + "\",\"colour\":\"red\"}"));
        assertEquals(403, api.post(PRODUCER_A, "admin/outbox/cancel", "{\"appId\":\"" + app + "\"}").status());
        assertEquals(10_002, ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?::uuid", app), "refusals change nothing");

        // by age first: only the old row matches
        Api.Reply old = api.post(ADMIN, "admin/outbox/cancel", """
                {"appId":"%s","sourceKind":"kv","olderThan":"%s"}""".formatted(app, OffsetDateTime.now().minusHours(1)));
        assertEquals(200, old.status(), old.toString());
        assertEquals(1, old.object().getInt("cancelled"));
        assertFalse(old.object().getBoolean("more"));

        Api.Reply first = api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"" + app + "\"}");
        assertEquals(200, first.status(), first.toString());
        assertEquals(10_000, first.object().getInt("cancelled"), first.toString());
        assertEquals(0, first.object().getInt("cancelRequested"));
        assertTrue(first.object().getBoolean("more"));
        JsonObject audited = api.get(ADMIN, "admin/audit?action=outbox.bulk-cancel&limit=1").object()
                .getJsonArray("items").getJsonObject(0);
        assertEquals(10_000, audited.getInt("affected"), audited.toString());
        assertEquals(app.toString(), audited.getJsonObject("filter").getString("appId"), audited.toString());
        assertEquals(ADMIN, audited.getString("principal"), audited.toString());

        Api.Reply rest = api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"" + app + "\"}");
        assertEquals(1, rest.object().getInt("cancelled"), rest.toString());
        assertFalse(rest.object().getBoolean("more"));
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?::uuid", app));
        assertEquals(10_002, ItDatabase.count(
                "SELECT count(*) FROM delivery_history WHERE app_id = ?::uuid AND outcome = 'cancelled'", app));
    }
}
