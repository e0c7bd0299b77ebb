package dev.triggeroutbox.platform;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.Traces.assertContext;
import static dev.triggeroutbox.testkit.Traces.assertUntraced;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.Receiver;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
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
 * W3C trace context end to end: the {@code traceparent} and {@code tracestate} of a producer's call reach every
 * delivery of its rows as headers (a real HTTP receiver on loopback), through fan-out, batches, a handler's
 * cascade and a dead letter's replay; a malformed one starts nothing and refuses nothing. Called through the typed
 * client, whose {@code Call} sends the context as a producer's code would.
 */
@ExtendWith(ArquillianExtension.class)
class TraceContextIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String STATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE";

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
        client = ItClients.client(base, ADMIN);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        client.close();
    }

    /** A fresh trace's traceparent, sampled. */
    private static String parent() {
        return "00-" + UUID.randomUUID().toString().replace("-", "") + "-"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 16) + "-01";
    }

    private static Call traced(String parent) {
        return Call.plain().traced(parent, STATE);
    }

    private UUID trigger(TriggerDefinition definition) {
        return client.createTrigger(app, definition, Call.plain()).id();
    }

    private UUID webhook(String kind, String path) {
        receiver.script(path, n -> Receiver.Answer.of(204));
        return trigger(TriggerDefinition.webhook(kind, URI.create(receiver.url(path))));
    }

    private Receiver.Request first(String path) {
        Eventually.until(WAIT, () -> !receiver.at(path).isEmpty(), () -> "nothing reached " + path);
        return receiver.at(path).get(0);
    }

    private static Event event(String kind, int n) {
        return Event.of(kind, Json.createObjectBuilder().add("n", n).build());
    }

    @Test
    void aPublishCarriesItsCallersTraceContextToTheDeliveryAndShowsItOnTheRow() {
        webhook("kv", "/traced");
        String parent = parent();

        client.publish(app, event("kv", 1), traced(parent));

        Receiver.Request got = first("/traced");
        assertContext(parent, got.header("traceparent"));
        assertEquals(STATE, got.header("tracestate"));

        // a row still waiting says which trace it belongs to
        Event later = Event.of("kv", JsonValue.EMPTY_JSON_OBJECT)
                .deliverAt(OffsetDateTime.now(ZoneOffset.UTC).plusHours(1));
        UUID id = client.publish(app, later, traced(parent)).get(0).id();
        OutboxClient.RowStatus row = client.status(id);
        assertEquals("scheduled", row.status());
        assertContext(parent, row.traceparent());
        assertEquals("cancelled", client.cancel(id).status());
    }

    @Test
    void aMalformedTraceparentIsIgnoredAndTheEventStillPublished() {
        webhook("kv", "/untraced");

        client.publish(app, event("kv", 2),
                Call.plain().traced("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", STATE));
        client.publish(app, event("kv", 3));

        Eventually.until(WAIT, () -> receiver.at("/untraced").size() == 2, () -> receiver.at("/untraced").toString());
        for (Receiver.Request got : receiver.at("/untraced")) {
            // a malformed context is no context: the outbox's own trace where the server makes spans
            assertUntraced(got.header("traceparent"), "00-4bf92f3577b34da6a3ce929d0e0e4736", got.toString());
            assertNull(got.header("tracestate"), got.toString());
        }
    }

    @Test
    void bothBatchFormsCarryTheTraceContextToEveryRow() {
        UUID trigger = webhook("kv", "/batched");
        String parent = parent();

        client.publishAll(app, List.of(event("kv", 1), event("kv", 2)), traced(parent));
        client.enqueueAll(List.of(NewRow.of(app, "kv", trigger, Json.createObjectBuilder().add("n", 3).build())),
                traced(parent));

        Eventually.until(WAIT, () -> receiver.at("/batched").size() == 3, () -> receiver.at("/batched").toString());
        for (Receiver.Request got : receiver.at("/batched")) {
            assertContext(parent, got.header("traceparent"), got.toString());
            assertEquals(STATE, got.header("tracestate"), got.toString());
        }
    }

    @Test
    void whatAHandlerPublishesJoinsTheTraceOfTheRowItHandles() {
        trigger(TriggerDefinition.handler("kv", "publisher"));
        webhook("docs", "/cascaded");
        String parent = parent();

        client.publish(app, event("kv", 4), traced(parent));

        Receiver.Request got = first("/cascaded");
        assertContext(parent, got.header("traceparent"));
        assertEquals(STATE, got.header("tracestate"));
        assertEquals("1", got.header("outbox-trigger-depth"));
    }

    @Test
    void aReplayedDeadLetterCarriesItsTraceContextAgain() {
        receiver.script("/refusing", n -> Receiver.Answer.of(n == 1 ? 500 : 204));
        UUID trigger = trigger(TriggerDefinition.webhook("kv", URI.create(receiver.url("/refusing"))).maxAttempts(1));
        String parent = parent();
        UUID id = client.enqueue(NewRow.of(app, "kv", trigger, Json.createObjectBuilder().add("n", 5).build()),
                traced(parent));
        Eventually.until(WAIT, () -> "dead".equals(client.status(id).status()),
                () -> client.status(id).json().toString());
        assertContext(parent, client.status(id).traceparent());

        client.replayDeadLetter(id, Call.plain());

        Eventually.until(WAIT, () -> receiver.at("/refusing").size() == 2, () -> receiver.at("/refusing").toString());
        assertContext(parent, receiver.at("/refusing").get(0).header("traceparent"));
        assertContext(parent, receiver.at("/refusing").get(1).header("traceparent"));
        assertEquals(STATE, receiver.at("/refusing").get(1).header("tracestate"));
    }
}
