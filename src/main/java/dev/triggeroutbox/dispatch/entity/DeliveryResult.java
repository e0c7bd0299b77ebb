package dev.triggeroutbox.dispatch.entity;

import java.time.Duration;

/** What one delivery attempt came to, as a target reports it. */
public sealed interface DeliveryResult {

    /** The target took the row; {@code reply} is its answer (for request/reply), may be null. */
    record Delivered(String reply) implements DeliveryResult {
    }

    /** This attempt failed and another may succeed; {@code retryAfter} is the target's wish, or null. */
    record Failed(String error, Duration retryAfter) implements DeliveryResult {
    }

    /** No attempt can succeed: dead-letter now. {@code disableTrigger} when the target is gone for good (410). */
    record Rejected(String error, boolean disableTrigger) implements DeliveryResult {
    }

    /**
     * The delivery never started (no delivery thread was free before the claim's start deadline): no
     * attempt is spent, the row is given back to be claimed again.
     */
    record NotStarted(String reason) implements DeliveryResult {
    }

    static DeliveryResult failed(String error) {
        return new Failed(error, null);
    }

    static DeliveryResult rejected(String error) {
        return new Rejected(error, false);
    }
}
