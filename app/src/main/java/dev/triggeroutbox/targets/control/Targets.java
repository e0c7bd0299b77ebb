package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.platform.Tracing;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Routes a claimed row to the delivery target its trigger names, each attempt in a span of its own where the server
 * provides OpenTelemetry ({@link Tracing}): the target then sends the span's context, so the receiver's trace is a
 * child of the attempt.
 */
@ApplicationScoped
public class Targets {

    @Inject
    @Any
    Instance<DeliveryTarget> all;

    @Inject
    DeliveryThreads threads;

    @Inject
    Tracing tracing;

    private final Map<String, DeliveryTarget> byType = new HashMap<>();

    @PostConstruct
    void index() {
        all.forEach(t -> byType.put(t.type(), t));
    }

    public CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout) {
        DeliveryTarget target = byType.get(row.trigger().targetType());
        if (target == null) {
            return CompletableFuture.completedFuture(
                    DeliveryResult.rejected("target type '" + row.trigger().targetType() + "' is not supported"));
        }
        if (!tracing.active()) {
            return target.deliver(row, maxAttempts, timeout);
        }
        TraceContext written = row.trace();
        Tracing.Span span = tracing.attempt(target.type(), row.appId().toString(), row.id().toString(),
                row.triggerId() == null ? null : row.triggerId().toString(), row.attemptCount(),
                written == null ? null : written.traceparent(), written == null ? null : written.tracestate());
        CompletableFuture<DeliveryResult> delivery = target
                .deliver(row.tracedBy(TraceContext.parse(span.traceparent(), span.tracestate())), maxAttempts, timeout);
        // the target's own future goes back: the dispatcher completes it to stop the work
        delivery.whenComplete((result, failure) -> ended(span, result, failure));
        return delivery;
    }

    private static void ended(Tracing.Span span, DeliveryResult result, Throwable failure) {
        if (result instanceof DeliveryResult.Delivered) {
            span.end("delivered", null);
        } else if (result instanceof DeliveryResult.Failed f) {
            span.end("failed", f.error());
        } else if (result instanceof DeliveryResult.Rejected r) {
            span.end("rejected", r.error());
        } else if (result instanceof DeliveryResult.NotStarted) {
            span.end("not_started", null);
        } else {
            span.end("failed", failure == null ? "no result" : failure.getClass().getSimpleName());
        }
    }

    /** The node is stopping: deliveries waiting for a thread or a connection are given back unstarted, none starts any more. */
    public int stopStarting() {
        int given = threads.stopStarting();
        for (DeliveryTarget t : byType.values()) {
            given += t.stopStarting();
        }
        return given;
    }

    /** Per trigger, the most rows the next claim should take where a target is the bound ({@link DeliveryTarget#rooms()}). */
    public Map<UUID, Integer> rooms() {
        Map<UUID, Integer> rooms = new HashMap<>();
        for (DeliveryTarget t : byType.values()) {
            t.rooms().forEach((trigger, room) -> rooms.merge(trigger, room, Math::min));
        }
        return rooms;
    }
}
