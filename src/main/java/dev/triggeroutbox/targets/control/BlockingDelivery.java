package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs a delivery that blocks its thread (a handler, a JMS send) on the {@link DeliveryThreads}, with the
 * delivery timeout armed when the work really starts; a delivery given up on interrupts its thread.
 */
final class BlockingDelivery {

    private BlockingDelivery() {
    }

    static CompletableFuture<DeliveryResult> start(ExecutorService executor, Duration timeout, Supplier<DeliveryResult> work) {
        CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
        Future<?> running;
        try {
            running = executor.submit(() -> {
                if (!result.isDone()) {
                    result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS); // from now: the work runs
                    result.complete(work.get());
                }
            });
        } catch (RejectedExecutionException e) {
            result.complete(DeliveryResult.failed("delivery could not start: the executor is not accepting work"));
            return result;
        }
        result.whenComplete((r, e) -> {
            if (e != null) {
                running.cancel(true);
            }
        });
        return result;
    }
}
