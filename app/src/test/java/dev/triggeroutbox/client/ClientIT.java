package dev.triggeroutbox.client;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.PASSWORD;
import static dev.triggeroutbox.testkit.Traces.assertContext;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Receiver;
import dev.triggeroutbox.testkit.StandardWebhooksVerifier;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.rest.client.RestClientBuilder;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The typed Java client (client/) against the deployed WAR: every call it offers, answers read into records,
 * refusals into problems with their fields, and a delivery's signature checked by the client's verifier and
 * by the tests' own verifier written from the specification.
 */
@ExtendWith(ArquillianExtension.class)
class ClientIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private OutboxClient client;
    private Receiver receiver;
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() throws Exception {
        client = OutboxClient.connect(URI.create(base.toString()).resolve("api/v1/"), ADMIN, PASSWORD);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        client.close();
    }

    @Test
    void publishesSignedTracedAndIdempotentlyAndReadsWhereTheRowStands() {
        receiver.script("/client", n -> Receiver.Answer.of(204));
        OutboxClient.Trigger created = client.createTrigger(app,
                TriggerDefinition.webhook("kv", URI.create(receiver.url("/client"))), Call.plain());
        assertTrue(created.secret().startsWith("whsec_"), created.json().toString());
        assertNull(client.trigger(app, created.id()).secret(), "the secret is shown once");
        assertEquals(List.of(created.id()), client.triggers(app).stream().map(OutboxClient.Trigger::id).toList());

        String traceparent = "00-" + UUID.randomUUID().toString().replace("-", "") + "-00f067aa0ba902b7-01";
        Call call = Call.idempotent(UUID.randomUUID().toString()).traced(traceparent, null);
        Event event = Event.of("kv", Json.createObjectBuilder().add("greeting", "hello").build());
        List<OutboxClient.Written> rows = client.publish(app, event, call);
        assertEquals(1, rows.size());
        assertEquals(created.id(), rows.get(0).triggerId());
        assertEquals(rows, client.publish(app, event, call), "a repeat with the key answers the first answer");

        Eventually.until(WAIT, () -> receiver.at("/client").size() == 1, () -> receiver.at("/client").toString());
        Receiver.Request got = receiver.at("/client").get(0);
        assertTrue(
                WebhookVerifier.of(created.secret()).verify(got.header("webhook-id"), got.header("webhook-timestamp"),
                        got.header("webhook-signature"), got.body()),
                got.toString());
        assertTrue(
                StandardWebhooksVerifier.verify(created.secret(), got.header("webhook-id"),
                        got.header("webhook-timestamp"),
                        got.header("webhook-signature"), got.body()),
                "the client's verifier agrees with the specification's");
        assertFalse(
                WebhookVerifier.of(created.secret()).verify(got.header("webhook-id"), got.header("webhook-timestamp"),
                        got.header("webhook-signature"), got.body() + " "),
                "a changed body does not verify");
        assertContext(traceparent, got.header("traceparent"));
        UUID row = rows.get(0).id();
        Eventually.until(WAIT, () -> client.status(row).status().equals("delivered"),
                () -> client.status(row).json().toString());
        List<JsonObject> attempts = client.attempts(row);
        assertEquals(1, attempts.size(), attempts.toString());
        assertEquals("delivered", attempts.get(0).getString("outcome"));
        assertEquals(204, attempts.get(0).getInt("httpStatus"));

        OutboxClient.Trigger rotated = client.rotateSecret(app, created.id());
        assertTrue(rotated.secret().startsWith("whsec_"));
        assertNotEquals(created.secret(), rotated.secret());
        client.deleteTrigger(app, created.id());
        ProblemException gone = assertThrows(ProblemException.class, () -> client.trigger(app, created.id()));
        assertEquals(404, gone.status());
        assertEquals("not-found", gone.type());
    }

    @Test
    void refusalsAreProblemsWithTheirFields() {
        ProblemException bad = assertThrows(ProblemException.class,
                () -> client.publish(app, Event.of("no-such-kind", Json.createObjectBuilder().build())));
        assertEquals(400, bad.status(), bad.getMessage());
        assertTrue(bad.errors().stream().anyMatch(e -> e.field().equals("sourceKind")), bad.errors().toString());

        ProblemException unknown = assertThrows(ProblemException.class,
                () -> client.enqueue(NewRow.of(app, "kv", UUID.randomUUID(), Json.createObjectBuilder().build())));
        assertEquals(404, unknown.status(), unknown.getMessage());

        ProblemException batch = assertThrows(ProblemException.class, () -> client.publishAll(app,
                List.of(Event.of("kv", Json.createObjectBuilder().build()),
                        Event.of("nope", Json.createObjectBuilder().build())),
                Call.plain()));
        assertTrue(batch.errors().stream().anyMatch(e -> e.field().equals("events[1].sourceKind")),
                batch.errors().toString());
    }

    @Test
    void batchesScheduledRowsCancelInvokeAndPause() {
        OutboxClient.Trigger handler = client.createTrigger(app,
                TriggerDefinition.handler("kv", "recorder").maxAttempts(2), Call.plain());

        List<OutboxClient.Written> published = client.publishAll(app, List.of(Event.of("kv", Json.createValue(1)),
                Event.of("kv", Json.createValue(2))), Call.plain());
        assertEquals(List.of(0, 1), published.stream().map(OutboxClient.Written::event).toList());
        OffsetDateTime later = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1);
        List<OutboxClient.Written> enqueued = client.enqueueAll(List.of(
                new NewRow(app, "kv", handler.id(), Json.createValue("later"), later)), Call.plain());
        UUID scheduled = enqueued.get(0).id();
        assertEquals("scheduled", client.status(scheduled).status());
        assertEquals("cancelled", client.cancel(scheduled).status());
        for (OutboxClient.Written w : published) {
            Eventually.until(WAIT, () -> client.status(w.id()).status().equals("delivered"),
                    () -> client.status(w.id()).json().toString());
        }

        OutboxClient.Invoked invoked = client.invoke(app, handler.id(), Json.createValue("ping"),
                Duration.ofSeconds(10), Call.plain());
        assertTrue(invoked.answered(), invoked.toString());
        assertEquals("ok", invoked.body().replace("\"", ""));

        assertTrue(client.holdTrigger(app, handler.id()).held());
        assertTrue(client.trigger(app, handler.id()).held());
        UUID waiting = client.publish(app, Event.of("kv", Json.createValue(3)), Call.plain()).get(0).id();
        assertEquals("held", client.status(waiting).status());
        assertTrue(client.holdApp(app).getBoolean("held"));
        assertFalse(client.releaseTrigger(app, handler.id()).held());
        assertEquals("held", client.status(waiting).status(), "still held: by its app now");
        assertFalse(client.releaseApp(app).getBoolean("held"));
        Eventually.until(WAIT, () -> client.status(waiting).status().equals("delivered"),
                () -> client.status(waiting).json().toString());

        client.pause();
        try {
            assertTrue(client.stats().getBoolean("paused"));
        } finally {
            client.resume();
        }
        assertFalse(client.stats().getBoolean("paused"));
    }

    @Test
    void keyedRowsAndLanes() {
        OutboxClient.Trigger handler = client.createTrigger(app,
                TriggerDefinition.handler("kv", "recorder").onDeadLetter("block"), Call.plain());
        assertEquals("block", handler.json().getString("onDeadLetter"));
        UUID delivered = client.publish(app, Event.of("kv", Json.createValue(1)).orderingKey("order-1"), Call.plain())
                .get(0).id();
        Eventually.until(WAIT, () -> client.status(delivered).status().equals("delivered"),
                () -> client.status(delivered).json().toString());
        UUID later = client.enqueue(new NewRow(app, "kv", handler.id(), Json.createValue(2),
                OffsetDateTime.now(ZoneOffset.UTC).plusHours(1)).orderingKey("order-2"));
        assertEquals("order-2", client.status(later).orderingKey());

        assertEquals(List.of(), client.lanes(app, 10), "a lane waiting for its time is not stuck");
        ProblemException notBlocked = assertThrows(ProblemException.class,
                () -> client.skipLane(handler.id(), "order-1"));
        assertEquals(409, notBlocked.status(), notBlocked.getMessage());
        assertEquals("lane-not-blocked", notBlocked.type());
        client.cancel(later);
    }
    @Test
    void theMicroProfileRestClientInterfaceCallsTheSameApi() {
        OutboxApi api = RestClientBuilder.newBuilder().baseUri(URI.create(base.toString()).resolve("api/v1/"))
                .register(new OutboxApi.BasicAuth(ADMIN, PASSWORD)).build(OutboxApi.class);
        JsonObject trigger = api.createTrigger(app, Json.createObjectBuilder().add("sourceKind", "kv")
                .add("target", Json.createObjectBuilder().add("type", "handler").add("name", "recorder")).build(),
                null);
        UUID triggerId = UUID.fromString(trigger.getString("id"));
        assertEquals(1, api.triggers(app).size());
        assertEquals("handler", api.trigger(app, triggerId).getJsonObject("target").getString("type"));

        String traceparent = "00-" + UUID.randomUUID().toString().replace("-", "") + "-00f067aa0ba902b7-01";
        // held, so that its status is read while it is a live row (a finished row's history keeps no trace context)
        assertTrue(api.holdTrigger(app, triggerId).getBoolean("held"));
        JsonObject published = api.publish(app,
                Json.createObjectBuilder().add("sourceKind", "kv").add("payload", 7).build(),
                "mp-" + UUID.randomUUID(), traceparent, null);
        UUID row = UUID.fromString(published.getJsonArray("rows").getJsonObject(0).getString("id"));
        assertContext(traceparent, api.status(row).getString("traceparent"));
        assertFalse(api.releaseTrigger(app, triggerId).getBoolean("held"));
        Eventually.until(WAIT, () -> api.status(row).getString("status").equals("delivered"),
                () -> api.status(row).toString());

        try (Response invoked = api.invoke(app, triggerId, 10_000L,
                Json.createObjectBuilder().add("payload", "ping").build(),
                null, null, null)) {
            assertEquals(200, invoked.getStatus());
        }
        assertTrue(api.metrics().contains("outbox_"), "the Prometheus text");
        assertEquals("UP", api.ready().getString("status"));

        ProblemException refused = assertThrows(ProblemException.class, () -> api.publish(app,
                Json.createObjectBuilder().add("sourceKind", "nope").add("payload", 1).build(), null, null, null));
        assertEquals(400, refused.status());
        assertTrue(refused.errors().stream().anyMatch(e -> e.field().equals("sourceKind")),
                refused.errors().toString());
        ProblemException missing = assertThrows(ProblemException.class, () -> api.trigger(app, UUID.randomUUID()));
        assertEquals(404, missing.status());

        assertEquals(0, api.deadLetterGroups(app.toString(), null, null, null, 10, null).getJsonArray("items").size());
        assertEquals(0, api.deadLetters(app.toString(), null, null, triggerId.toString(), "order-1", 10, null)
                .getJsonArray("items").size());
        ProblemException badKey = assertThrows(ProblemException.class,
                () -> api.deadLetterGroups(app.toString(), null, null, null, "", 10, null));
        assertTrue(badKey.errors().stream().anyMatch(e -> e.field().equals("orderingKey")), badKey.errors().toString());
        assertEquals(0, api.lanes(app, 10).getJsonArray("items").size());
        assertEquals(0, api.discardDeadLetters(Json.createObjectBuilder().add("appId", app.toString()).build())
                .getInt("discarded"));
        assertTrue(api.holdTrigger(app, triggerId).getBoolean("held"));
        assertFalse(api.releaseTrigger(app, triggerId).getBoolean("held"));
        assertTrue(api.holdApp(app).getBoolean("held"));
        assertTrue(api.holds().getJsonArray("apps").stream()
                .anyMatch(h -> h.asJsonObject().getString("appId").equals(app.toString())));
        assertFalse(api.releaseApp(app).getBoolean("held"));

        api.deleteTrigger(app, triggerId);
        assertEquals(0, api.triggers(app).size());
    }
}
