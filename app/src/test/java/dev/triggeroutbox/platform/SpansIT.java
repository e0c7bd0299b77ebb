package dev.triggeroutbox.platform;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.OtlpCollector;
import dev.triggeroutbox.testkit.OtlpCollector.Received;
import dev.triggeroutbox.testkit.Receiver;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The outbox's spans on a server that provides OpenTelemetry: WildFly's standalone-full.xml with the
 * {@code opentelemetry} subsystem (standalone-config/opentelemetry-add.cli, applied by the build), exporting to a
 * real OTLP gRPC endpoint the test starts ({@link OtlpCollector}). A write and each delivery attempt are spans of
 * the producer's trace, and the receiver's {@code traceparent} names the attempt. Without the subsystem (every
 * other IT) the trace context passes on unchanged: {@link TraceContextIT}. Calls go through the typed client, the
 * caller's context as {@code Call.traced} sends it.
 */
@ExtendWith(ArquillianExtension.class)
class SpansIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String STATE = "rojo=00f067aa0ba902b7";
    private static OtlpCollector collector;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private OutboxClient client;
    private Receiver receiver;
    private final UUID app = UUID.randomUUID();

    @BeforeAll
    static void startCollector() {
        collector = OtlpCollector.start(Integer.getInteger("it.otlp.port", 14317));
    }

    @AfterAll
    static void stopCollector() {
        collector.close();
    }

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

    private static String traceId() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    private static String spanId() {
        return UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    private void trigger(TriggerDefinition definition) {
        client.createTrigger(app, definition.maxAttempts(3), Call.plain());
    }

    private void webhook(String kind, String path) {
        trigger(TriggerDefinition.webhook(kind, URI.create(receiver.url(path))));
    }

    /** The call of a caller in the trace {@code trace}, as its span {@code caller}. */
    private static Call traced(String trace, String caller, String state) {
        return Call.plain().traced("00-" + trace + "-" + caller + "-01", state);
    }

    /** Publishes one kv event; answers its one row's id. */
    private String publish(Call call) {
        return client.publish(app, Event.of("kv", Json.createObjectBuilder().add("n", 1).build()), call).get(0).id()
                .toString();
    }

    private List<Receiver.Request> received(String path, int count) {
        Eventually.until(WAIT, () -> receiver.at(path).size() >= count, () -> receiver.at(path).toString());
        return receiver.at(path);
    }

    private List<Received> attempts(String rowId, int count) {
        return collector
                .await(s -> s.name().startsWith("outbox deliver ") && rowId.equals(s.attribute("outbox.row_id")),
                        count, WAIT)
                .stream().sorted(Comparator.comparing(s -> Integer.parseInt(s.attribute("outbox.attempt")))).toList();
    }

    private Received byId(String spanId) {
        return collector.await(s -> s.spanId().equals(spanId), 1, WAIT).get(0);
    }

    private Received publishSpanOf(Received attempt) {
        Received write = byId(attempt.parentSpanId());
        assertEquals("outbox publish", write.name(), write.toString());
        assertEquals(SpanKind.SPAN_KIND_PRODUCER, write.kind(), write.toString());
        assertEquals(app.toString(), write.attribute("outbox.app_id"), write.toString());
        return write;
    }

    @Test
    void aTracedPublishAndItsDeliveryAreSpansOfTheCallersTrace() {
        receiver.script("/traced", n -> Receiver.Answer.of(204));
        webhook("kv", "/traced");
        String trace = traceId();
        String caller = spanId();

        String row = publish(traced(trace, caller, STATE));

        Receiver.Request got = received("/traced", 1).get(0);
        Received attempt = attempts(row, 1).get(0);
        assertEquals("outbox deliver webhook", attempt.name());
        assertEquals(SpanKind.SPAN_KIND_CONSUMER, attempt.kind());
        assertEquals(trace, attempt.traceId(), attempt.toString());
        assertEquals("delivered", attempt.attribute("outbox.outcome"), attempt.toString());
        assertEquals("1", attempt.attribute("outbox.attempt"));
        assertEquals("webhook", attempt.attribute("outbox.target.type"));
        assertFalse(attempt.failed(), attempt.toString());
        // the receiver's trace is a child of the attempt, with the caller's trace state
        assertEquals(attempt.traceparent(), got.header("traceparent"));
        assertEquals(STATE, got.header("tracestate"));

        Received write = publishSpanOf(attempt);
        assertEquals(trace, write.traceId());
        assertEquals("1", write.attribute("outbox.rows"));
        assertEquals("kv", write.attribute("outbox.source_kind"));
        // the write is the caller's child, through the server's span of the REST request when it makes one
        Received parent = write;
        if (!write.parentSpanId().equals(caller)) {
            parent = byId(write.parentSpanId());
            assertEquals(SpanKind.SPAN_KIND_SERVER, parent.kind(), parent.toString());
        }
        assertEquals(caller, parent.parentSpanId(), parent.toString());
    }

    @Test
    void aWaitingRowShowsTheContextOfItsWrite() {
        webhook("kv", "/later");
        String trace = traceId();
        Event later = Event.of("kv", JsonValue.EMPTY_JSON_OBJECT)
                .deliverAt(OffsetDateTime.now(ZoneOffset.UTC).plusHours(1));
        UUID row = client.publish(app, later, traced(trace, spanId(), null)).get(0).id();

        String stored = client.status(row).traceparent();
        Received write = byId(stored.substring(36, 52));
        assertEquals("outbox publish", write.name(), write.toString());
        assertEquals(write.traceparent(), stored);
        assertEquals(trace, write.traceId());
        assertEquals("cancelled", client.cancel(row).status());
    }

    @Test
    void eachAttemptIsASpanOfItsOwnAndAFailedOneSaysWhy() {
        receiver.script("/flaky", n -> Receiver.Answer.of(n == 1 ? 503 : 204));
        webhook("kv", "/flaky");
        String trace = traceId();

        String row = publish(traced(trace, spanId(), null));

        List<Receiver.Request> got = received("/flaky", 2);
        List<Received> attempts = attempts(row, 2);
        Received first = attempts.get(0);
        Received second = attempts.get(1);
        assertEquals("1", first.attribute("outbox.attempt"));
        assertEquals("failed", first.attribute("outbox.outcome"), first.toString());
        assertTrue(first.failed(), first.toString());
        assertTrue(first.statusMessage().contains("503"), first.toString());
        assertEquals("2", second.attribute("outbox.attempt"));
        assertEquals("delivered", second.attribute("outbox.outcome"), second.toString());
        assertFalse(second.failed(), second.toString());
        // both are children of the one write, and each request names its own attempt
        assertEquals(first.parentSpanId(), second.parentSpanId());
        assertEquals(trace, publishSpanOf(first).traceId());
        assertEquals(first.traceparent(), got.get(0).header("traceparent"));
        assertEquals(second.traceparent(), got.get(1).header("traceparent"));
    }

    @Test
    void whatAHandlerPublishesIsAChildOfItsAttempt() {
        trigger(TriggerDefinition.handler("kv", "publisher"));
        receiver.script("/cascaded", n -> Receiver.Answer.of(204));
        webhook("docs", "/cascaded");
        String trace = traceId();

        String row = publish(traced(trace, spanId(), null));

        Receiver.Request got = received("/cascaded", 1).get(0);
        Received handled = attempts(row, 1).get(0);
        assertEquals("outbox deliver handler", handled.name());
        assertEquals("delivered", handled.attribute("outbox.outcome"), handled.toString());
        Received cascade = collector
                .await(s -> s.name().equals("outbox publish") && s.parentSpanId().equals(handled.spanId()),
                        1, WAIT)
                .get(0);
        assertEquals("docs", cascade.attribute("outbox.source_kind"));
        Received delivered = collector.await(s -> s.name().equals("outbox deliver webhook")
                && s.parentSpanId().equals(cascade.spanId()), 1, WAIT).get(0);
        assertEquals(trace, delivered.traceId());
        assertEquals(delivered.traceparent(), got.header("traceparent"));
        assertEquals("1", got.header("outbox-trigger-depth"));
    }

    @Test
    void anUntracedPublishStartsATraceThatTheReceiverJoins() {
        receiver.script("/untraced", n -> Receiver.Answer.of(204));
        webhook("kv", "/untraced");

        String row = publish(Call.plain());

        Receiver.Request got = received("/untraced", 1).get(0);
        Received attempt = attempts(row, 1).get(0);
        assertNotNull(got.header("traceparent"), got.toString());
        assertEquals(attempt.traceparent(), got.header("traceparent"));
        assertEquals(attempt.traceId(), publishSpanOf(attempt).traceId());
    }
}
