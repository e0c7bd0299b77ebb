package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One kind of place a trigger delivers to. Implementations never block the caller: the dispatcher
 * starts every delivery of a batch, then waits for all of them with one deadline.
 */
public interface DeliveryTarget {

    /** The trigger target type this serves ({@code handler}, {@code webhook}, {@code jms}). */
    String type();

    /**
     * Starts delivering. The future completes with the result. The target arms {@code timeout} when
     * the delivery really starts (a handler waiting for a free thread loses none of its time); when
     * the future is completed exceptionally, by that timeout or by the dispatcher, the target stops
     * the work (interrupts the handler, aborts the HTTP exchange).
     */
    CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout);

    /**
     * The most rows of each trigger (by id) the next claim should take for this target, where the target is the
     * bound (a webhook origin with every connection busy: 0); triggers not named are bound only by their share.
     */
    default Map<UUID, Integer> rooms() {
        return Map.of();
    }

    /** The node is stopping: deliveries this target holds back, not started yet, are given back unstarted. How many. */
    default int stopStarting() {
        return 0;
    }
}
