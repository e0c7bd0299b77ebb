package dev.triggeroutbox.platform;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link Tracing}'s spans on the server's OpenTelemetry. The only class that names OpenTelemetry's types: it is
 * loaded once {@link Tracing} has found them, so a server without them never links it.
 */
final class OpenTelemetrySpans {

    private static final String SCOPE = "dev.triggeroutbox";
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;

    private OpenTelemetrySpans(Tracer tracer) {
        this.tracer = tracer;
    }

    /** The spans of the deployment's OpenTelemetry bean; null when there is none, or when it makes only no-op spans (disabled). */
    static OpenTelemetrySpans fromServer() {
        Instance<OpenTelemetry> found = CDI.current().select(OpenTelemetry.class);
        if (!found.isResolvable()) {
            return null;
        }
        Tracer tracer = found.get().getTracer(SCOPE);
        // a disabled SDK (MicroProfile Telemetry's default) answers spans without a valid context. The probe also
        // makes every call a span makes, so that an older API on the server fails here, not in a write; it is never
        // ended, so never exported.
        remote("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "outbox=probe");
        Span probe = tracer.spanBuilder("outbox probe").setSpanKind(SpanKind.INTERNAL).setNoParent()
                .setAttribute("outbox.probe", "text").setAttribute("outbox.attempt", 1).startSpan();
        if (!probe.getSpanContext().isValid()) {
            return null;
        }
        new Started(probe, null, null);
        return new OpenTelemetrySpans(tracer);
    }

    Tracing.Span write(String operation, String appId, String sourceKind, String traceparent, String tracestate) {
        // the current span when it is in the given trace (WildFly's span of a REST request continues the caller's
        // traceparent) or when none is given; else the given one: a server span that started a trace of its own
        // (Payara's REST spans do not read traceparent) must not take the rows out of their producer's trace
        Context parent = Context.current();
        SpanContext current = Span.fromContext(parent).getSpanContext();
        if (!current.isValid() || (traceparent != null && !traceparent.regionMatches(3, current.getTraceId(), 0, 32))) {
            parent = remote(traceparent, tracestate);
        }
        SpanBuilder span = tracer.spanBuilder("outbox " + operation).setSpanKind(SpanKind.PRODUCER).setParent(parent)
                .setAttribute("messaging.system", "trigger-outbox")
                .setAttribute("messaging.operation.type", "send")
                .setAttribute("outbox.app_id", appId);
        if (sourceKind != null) {
            span.setAttribute("outbox.source_kind", sourceKind);
        }
        return new Started(span.startSpan(), traceparent, tracestate);
    }

    Tracing.Span attempt(String targetType, String appId, String rowId, String triggerId, int attempt,
            String traceparent, String tracestate) {
        SpanBuilder span = tracer.spanBuilder("outbox deliver " + targetType).setSpanKind(SpanKind.CONSUMER)
                .setParent(remote(traceparent, tracestate))
                .setAttribute("messaging.system", "trigger-outbox")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("outbox.app_id", appId)
                .setAttribute("outbox.row_id", rowId)
                .setAttribute("outbox.target.type", targetType)
                .setAttribute("outbox.attempt", attempt);
        if (triggerId != null) {
            span.setAttribute("outbox.trigger_id", triggerId);
        }
        return new Started(span.startSpan(), traceparent, tracestate);
    }

    Tracing.Scope current(String traceparent, String tracestate) {
        io.opentelemetry.context.Scope scope = remote(traceparent, tracestate).makeCurrent();
        return scope::close;
    }

    /** The context of the given header values, as a remote parent; the root context (no parent) when there is none. */
    private static Context remote(String traceparent, String tracestate) {
        if (traceparent == null) {
            return Context.root();
        }
        Map<String, String> headers = new HashMap<>(4);
        headers.put("traceparent", traceparent);
        if (tracestate != null) {
            headers.put("tracestate", tracestate);
        }
        return W3C.extract(Context.root(), headers, HEADERS);
    }

    /** A started span, with the header values that name it (the given ones when its context is not valid). */
    private static final class Started implements Tracing.Span {

        private final Span span;
        private final String traceparent;
        private final String tracestate;

        Started(Span span, String givenParent, String givenState) {
            this.span = span;
            Map<String, String> headers = new HashMap<>(4);
            if (span.getSpanContext().isValid()) {
                W3C.inject(Context.root().with(span), headers, Map::put);
            }
            this.traceparent = headers.getOrDefault("traceparent", givenParent);
            this.tracestate = headers.containsKey("traceparent") ? headers.get("tracestate") : givenState;
        }

        @Override
        public String traceparent() {
            return traceparent;
        }

        @Override
        public String tracestate() {
            return tracestate;
        }

        @Override
        public void rows(int count) {
            span.setAttribute("outbox.rows", count);
        }

        @Override
        public void end(String outcome, String error) {
            span.setAttribute("outbox.outcome", outcome);
            if (error != null) {
                span.setStatus(StatusCode.ERROR, error);
            }
            span.end();
        }
    }
}
