package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.api.OutboxDelivery;
import dev.triggeroutbox.api.OutboxHandler;
import dev.triggeroutbox.api.PermanentDeliveryException;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import dev.triggeroutbox.platform.Tracing;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** Delivers to a CDI bean of this deployment that implements {@link OutboxHandler}, found by its {@code @Named} name. */
@ApplicationScoped
public class HandlerTarget implements DeliveryTarget {

    @Inject
    @Any
    Instance<OutboxHandler> handlers;

    @Inject
    DeliveryThreads threads;

    @Inject
    Tracing tracing;

    // resolving a named bean is a scan of the bean graph; do it once per name
    private final Map<String, Optional<OutboxHandler>> byName = new ConcurrentHashMap<>();

    @Override
    public String type() {
        return "handler";
    }

    @Override
    public CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout) {
        String name = row.trigger().target();
        Optional<OutboxHandler> handler = byName.computeIfAbsent(name, this::resolve);
        if (handler.isEmpty()) {
            return CompletableFuture.completedFuture(
                    DeliveryResult.rejected("no handler named '" + name + "' is deployed"));
        }
        OutboxDelivery delivery = new OutboxDelivery(row.id().value(), row.appId().value(), row.sourceKind(),
                row.triggerId().value(), row.scriptId() == null ? null : row.scriptId().value(), row.payload(),
                row.attemptCount(), maxAttempts, row.triggerDepth(),
                row.rootExecutionId() == null ? null : row.rootExecutionId().value(), row.originPrincipal(),
                row.createdAt(), row.trace() == null ? null : row.trace().traceparent(),
                row.trace() == null ? null : row.trace().tracestate());
        return threads.start(row, timeout, () -> {
            // what the handler writes through the Java API, and its own traced calls, join the row's trace
            try (CurrentTrace.Scope trace = CurrentTrace.open(row.trace());
                    Tracing.Scope span = tracing.current(delivery.traceparent(), delivery.tracestate())) {
                return invoke(handler.get(), delivery);
            }
        });
    }

    /** Whether a handler of this name is deployed (checked when a trigger is registered). */
    public boolean exists(String name) {
        return byName.computeIfAbsent(name, this::resolve).isPresent();
    }

    private Optional<OutboxHandler> resolve(String name) {
        Instance<OutboxHandler> named = handlers.select(NamedLiteral.of(name));
        return named.isResolvable() ? Optional.of(named.get()) : Optional.empty();
    }

    private static DeliveryResult invoke(OutboxHandler handler, OutboxDelivery delivery) {
        try {
            Object reply = handler.handle(delivery);
            return new DeliveryResult.Delivered(reply == null ? null : reply.toString());
        } catch (PermanentDeliveryException e) {
            return DeliveryResult.rejected(describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DeliveryResult.failed("handler interrupted");
        } catch (Exception | LinkageError | AssertionError e) {
            return DeliveryResult.failed(describe(e));
        }
    }

    /** The handler's own message, without a stack trace. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        String kind = e.getClass().getSimpleName();
        return message == null || message.isBlank() ? kind : kind + ": " + message;
    }
}
