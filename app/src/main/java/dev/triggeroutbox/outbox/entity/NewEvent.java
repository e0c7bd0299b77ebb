package dev.triggeroutbox.outbox.entity;

import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * One event of a batch publish: fanned out to every enabled trigger of its app and kind. {@code payload}
 * is JSON text; {@code root} may be null (the event starts its own cascade); {@code deliverAt} may be null
 * (due at once); {@code orderingKey} may be null (no lane: delivered in parallel with every other row), else its
 * rows are delivered one at a time per trigger, in enqueue order, with the other rows of that key.
 */
public record NewEvent(SourceKind kind, String payload, ExecutionId root, int triggerDepth, OffsetDateTime deliverAt,
        String orderingKey) {

    public NewEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        if (triggerDepth < 0) {
            throw new IllegalArgumentException("triggerDepth must not be negative");
        }
        OrderingKey.check(orderingKey);
    }

    /** An event without an ordering key. */
    public NewEvent(SourceKind kind, String payload, ExecutionId root, int triggerDepth, OffsetDateTime deliverAt) {
        this(kind, payload, root, triggerDepth, deliverAt, null);
    }

    /** An event due at once, depth 0, its own cascade. */
    public static NewEvent of(SourceKind kind, String payload) {
        return new NewEvent(kind, payload, null, 0, null, null);
    }

    /** This event in the lane of {@code key} (null: none). */
    public NewEvent withOrderingKey(String key) {
        return new NewEvent(kind, payload, root, triggerDepth, deliverAt, key);
    }
}
