package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.Traces.assertContext;
import static dev.triggeroutbox.support.Traces.assertUntraced;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
 * W3C trace context end to end: the {@code traceparent} and {@code tracestate} of a producer's call reach every
 * delivery of its rows as headers (a real HTTP receiver on loopback), through fan-out, batches, a handler's
 * cascade and a dead letter's replay; a malformed one starts nothing and refuses nothing.
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

    private Api api;
    private Receiver receiver;
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

    /** A fresh trace's traceparent, sampled. */
    private static String parent() {
        return "00-" + UUID.randomUUID().toString().replace("-", "") + "-"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 16) + "-01";
    }

    private static Map<String, String> traced(String parent) {
        return Map.of("traceparent", parent, "tracestate", STATE);
    }

    private String trigger(String kind, String target, Integer maxAttempts) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"%s","target":%s%s}""".formatted(kind, target,
                maxAttempts == null ? "" : ",\"maxAttempts\":" + maxAttempts));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private String webhook(String kind, String path, Integer maxAttempts) {
        receiver.script(path, n -> Receiver.Answer.of(204));
        return trigger(kind, "{\"type\":\"webhook\",\"url\":\"" + receiver.url(path) + "\"}", maxAttempts);
    }

    private Receiver.Request first(String path) {
        Eventually.until(WAIT, () -> !receiver.at(path).isEmpty(), () -> "nothing reached " + path);
        return receiver.at(path).get(0);
    }

    private Api.Reply publish(String kind, String payload, Map<String, String> headers) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/events", "application/json",
                "{\"sourceKind\":\"" + kind + "\",\"payload\":" + payload + "}", headers);
        assertEquals(202, r.status(), r.toString());
        return r;
    }

    @Test
    void aPublishCarriesItsCallersTraceContextToTheDeliveryAndShowsItOnTheRow() {
        webhook("kv", "/traced", null);
        String parent = parent();

        publish("kv", "{\"n\":1}", traced(parent));

        Receiver.Request got = first("/traced");
        assertContext(parent, got.header("traceparent"));
        assertEquals(STATE, got.header("tracestate"));

        // a row still waiting says which trace it belongs to
        String later = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).toString();
        Api.Reply scheduled = api.post(ADMIN, "apps/" + app + "/events", "application/json",
                "{\"sourceKind\":\"kv\",\"payload\":{},\"deliverAt\":\"" + later + "\"}", traced(parent));
        String id = scheduled.object().getJsonArray("rows").getJsonObject(0).getString("id");
        JsonObject row = api.get(ADMIN, "outbox/" + id).object();
        assertEquals("scheduled", row.getString("status"));
        assertContext(parent, row.getString("traceparent"));
        assertEquals(200, api.post(ADMIN, "outbox/" + id + "/cancel", null).status());
    }

    @Test
    void aMalformedTraceparentIsIgnoredAndTheEventStillPublished() {
        webhook("kv", "/untraced", null);

        publish("kv", "{\"n\":2}", Map.of("traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "tracestate", STATE));
        publish("kv", "{\"n\":3}", Map.of());

        Eventually.until(WAIT, () -> receiver.at("/untraced").size() == 2, () -> receiver.at("/untraced").toString());
        for (Receiver.Request got : receiver.at("/untraced")) {
            // a malformed context is no context: the outbox's own trace where the server makes spans
            assertUntraced(got.header("traceparent"), "00-4bf92f3577b34da6a3ce929d0e0e4736", got.toString());
            assertNull(got.header("tracestate"), got.toString());
        }
    }

    @Test
    void bothBatchFormsCarryTheTraceContextToEveryRow() {
        String trigger = webhook("kv", "/batched", null);
        String parent = parent();

        Api.Reply events = api.post(ADMIN, "apps/" + app + "/events:batch", "application/json",
                "{\"events\":[{\"sourceKind\":\"kv\",\"payload\":{\"n\":1}},{\"sourceKind\":\"kv\",\"payload\":{\"n\":2}}]}",
                traced(parent));
        assertEquals(202, events.status(), events.toString());
        Api.Reply rows = api.post(ADMIN, "./outbox:batch", "application/json", """
                {"events":[{"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{"n":3}}]}""".formatted(app, trigger),
                traced(parent));
        assertEquals(202, rows.status(), rows.toString());

        Eventually.until(WAIT, () -> receiver.at("/batched").size() == 3, () -> receiver.at("/batched").toString());
        for (Receiver.Request got : receiver.at("/batched")) {
            assertContext(parent, got.header("traceparent"), got.toString());
            assertEquals(STATE, got.header("tracestate"), got.toString());
        }
    }

    @Test
    void whatAHandlerPublishesJoinsTheTraceOfTheRowItHandles() {
        trigger("kv", "{\"type\":\"handler\",\"name\":\"publisher\"}", null);
        webhook("docs", "/cascaded", null);
        String parent = parent();

        publish("kv", "{\"n\":4}", traced(parent));

        Receiver.Request got = first("/cascaded");
        assertContext(parent, got.header("traceparent"));
        assertEquals(STATE, got.header("tracestate"));
        assertEquals("1", got.header("outbox-trigger-depth"));
    }

    @Test
    void aReplayedDeadLetterCarriesItsTraceContextAgain() {
        receiver.script("/refusing", n -> Receiver.Answer.of(n == 1 ? 500 : 204));
        String trigger = trigger("kv", "{\"type\":\"webhook\",\"url\":\"" + receiver.url("/refusing") + "\"}", 1);
        String parent = parent();
        Api.Reply enqueued = api.post(ADMIN, "outbox", "application/json", """
                {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{"n":5}}""".formatted(app, trigger),
                traced(parent));
        assertEquals(201, enqueued.status(), enqueued.toString());
        String id = enqueued.object().getString("id");
        Eventually.until(WAIT, () -> "dead".equals(api.get(ADMIN, "outbox/" + id).object().getString("status")),
                () -> api.get(ADMIN, "outbox/" + id).toString());
        assertContext(parent, api.get(ADMIN, "outbox/" + id).object().getString("traceparent"));

        Api.Reply replayed = api.post(ADMIN, "admin/dead-letters/" + id + "/replay", null);
        assertEquals(201, replayed.status(), replayed.toString());

        Eventually.until(WAIT, () -> receiver.at("/refusing").size() == 2, () -> receiver.at("/refusing").toString());
        assertContext(parent, receiver.at("/refusing").get(0).header("traceparent"));
        assertContext(parent, receiver.at("/refusing").get(1).header("traceparent"));
        assertEquals(STATE, receiver.at("/refusing").get(1).header("tracestate"));
    }
}
