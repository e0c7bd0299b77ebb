package dev.triggeroutbox.targets.entity;

import java.time.Duration;

/** What one delivery attempt came to, as a target reports it. */
public sealed interface DeliveryResult {

    /**
     * The target took the row; {@code reply} is its answer (for request/reply), may be null; {@code httpStatus} the
     * status a webhook answered with (null for the other targets), kept in the delivery log.
     */
    record Delivered(String reply, Integer httpStatus) implements DeliveryResult {
        public Delivered(String reply) {
            this(reply, null);
        }
    }

    /**
     * This attempt failed and another may succeed; {@code retryAfter} is the target's wish, or null. A webhook's
     * {@code httpStatus} and the start of its {@code answer} (null otherwise) go to the delivery log.
     */
    record Failed(String error, Duration retryAfter, Integer httpStatus, String answer) implements DeliveryResult {
        public Failed(String error, Duration retryAfter) {
            this(error, retryAfter, null, null);
        }
    }

    /**
     * No attempt can succeed: dead-letter now. {@code disableTrigger} when the target is gone for good (410);
     * {@code httpStatus} and {@code answer} as for {@link Failed}.
     */
    record Rejected(String error, boolean disableTrigger, Integer httpStatus, String answer) implements DeliveryResult {
        public Rejected(String error, boolean disableTrigger) {
            this(error, disableTrigger, null, null);
        }
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
