package dev.triggeroutbox.platform;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The outbox's own spans, where the server provides OpenTelemetry: one for each write of rows (publish,
 * enqueue) and one for each delivery attempt, both in the trace the rows carry. A write's span is a child of
 * the caller's current span (a REST request's server span, a Java caller's own) when that is in the trace the
 * rows were given, else of the given context; the rows then carry the write's span, and each attempt's span is a child of that, so a
 * receiver's trace (the {@code traceparent} sent with the delivery names the attempt) joins the producer's.
 *
 * <p>OpenTelemetry's API is not in the WAR: a server that provides it as a CDI bean (WildFly's
 * {@code opentelemetry} subsystem, MicroProfile Telemetry) lends it to the deployment. On a server without it
 * this class finds no OpenTelemetry classes, makes no spans, and every trace context passes on unchanged.
 * Contexts are W3C header values here ({@code traceparent}, {@code tracestate}), so that this package names
 * none of the features' types.
 */
@ApplicationScoped
public class Tracing {

    private static final Logger LOG = Logger.getLogger(Tracing.class.getName());

    /**
     * Whether the outbox makes spans when the server provides OpenTelemetry. false: none, for a server that traces
     * its requests but should not pay a span per delivery; rows still store and send the trace context they are given.
     */
    @Inject
    @ConfigProperty(name = "outbox.tracing.spans", defaultValue = "true")
    boolean enabled;

    /** null: no spans (no OpenTelemetry here, a disabled one, or spans turned off). */
    private OpenTelemetrySpans spans;

    /** An operation's span, or its stand-in when there are none: the context that what it writes or sends carries. */
    public interface Span {

        /** The {@code traceparent} to store or send: this span's, or the one it was given when there are no spans. */
        String traceparent();

        /** The {@code tracestate} to go with it. */
        String tracestate();

        /** Records how many rows the operation wrote. */
        void rows(int count);

        /** Ends the span. {@code outcome} names how it ended ({@code written}, {@code delivered}, …); {@code error}, when not null, marks it failed. */
        void end(String outcome, String error);
    }

    /** Ends what {@link #current} made current. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /** Where there are no spans: the given context passes on, nothing is recorded. */
    private record Unchanged(String traceparent, String tracestate) implements Span {
        @Override
        public void rows(int count) {
        }

        @Override
        public void end(String outcome, String error) {
        }
    }

    @PostConstruct
    void find() {
        if (!enabled) {
            return;
        }
        try {
            Class.forName("io.opentelemetry.api.OpenTelemetry", false, Tracing.class.getClassLoader());
        } catch (ClassNotFoundException absent) {
            LOG.fine("the server provides no OpenTelemetry API: no spans");
            return;
        }
        try {
            spans = OpenTelemetrySpans.fromServer();
        } catch (RuntimeException | LinkageError e) {
            // an OpenTelemetry this code cannot use (an older API, a failing producer): tracing must not fail writes
            LOG.warning("the server's OpenTelemetry cannot be used, no spans: " + e);
            return;
        }
        LOG.info(spans == null
                ? "OpenTelemetry is present but provides no tracer (disabled): no spans"
                : "spans for writes and delivery attempts go to the server's OpenTelemetry");
    }

    /** Whether spans are made (the server's OpenTelemetry is present and enabled). */
    public boolean active() {
        return spans != null;
    }

    /**
     * Starts the span of a write of rows of {@code appId} ({@code operation}: {@code publish}, {@code enqueue}):
     * a child of the calling thread's current span when there is one in the given trace (or none is given), else of
     * the given context (null: none). So the rows stay in the trace their producer named.
     */
    public Span write(String operation, String appId, String sourceKind, String traceparent, String tracestate) {
        return spans == null
                ? new Unchanged(traceparent, tracestate)
                : spans.write(operation, appId, sourceKind, traceparent, tracestate);
    }

    /**
     * Makes the given context OpenTelemetry's current one on this thread until the scope is closed (nothing when there
     * are no spans), so that a handler's own instrumented calls join the attempt's trace.
     */
    public Scope current(String traceparent, String tracestate) {
        return spans == null || traceparent == null ? () -> {} : spans.current(traceparent, tracestate);
    }

    /** Starts the span of one delivery attempt of a row, a child of the context the row was written with (null: none). */
    public Span attempt(String targetType, String appId, String rowId, String triggerId, int attempt,
            String traceparent, String tracestate) {
        return spans == null
                ? new Unchanged(traceparent, tracestate)
                : spans.attempt(targetType, appId, rowId, triggerId, attempt, traceparent, tracestate);
    }
}
