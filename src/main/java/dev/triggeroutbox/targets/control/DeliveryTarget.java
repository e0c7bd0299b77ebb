package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.dispatch.entity.ClaimedRow;
import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import java.util.concurrent.CompletableFuture;

/**
 * One kind of place a trigger delivers to. Implementations never block the caller: the dispatcher
 * starts every delivery of a batch, then waits for all of them with one deadline.
 */
public interface DeliveryTarget {

    /** The trigger target type this serves ({@code handler}, {@code webhook}, {@code jms}). */
    String type();

    /**
     * Starts delivering. The future completes with the result; when the dispatcher gives up waiting
     * it completes the future exceptionally itself, and the target should then stop the work.
     */
    CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts);
}
