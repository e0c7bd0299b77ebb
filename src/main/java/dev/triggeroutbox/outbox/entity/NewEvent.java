package dev.triggeroutbox.outbox.entity;

import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * One event of a batch publish: fanned out to every enabled trigger of its app and kind. {@code payload}
 * is JSON text; {@code root} may be null (the event starts its own cascade); {@code deliverAt} may be null
 * (due at once).
 */
public record NewEvent(SourceKind kind, String payload, ExecutionId root, int triggerDepth, OffsetDateTime deliverAt) {

    public NewEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        if (triggerDepth < 0) {
            throw new IllegalArgumentException("triggerDepth must not be negative");
        }
    }

    /** An event due at once, depth 0, its own cascade. */
    public static NewEvent of(SourceKind kind, String payload) {
        return new NewEvent(kind, payload, null, 0, null);
    }
}
