package dev.triggeroutbox.console.entity;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import java.time.OffsetDateTime;

/**
 * A dead letter as a page lists it. {@code payload} is its JSON text as stored; {@code triggerId},
 * {@code rootExecutionId} and {@code orderingKey} are null for rows without them.
 */
public record DeadLetter(OutboxId id, AppId appId, String sourceKind, int attemptCount, int triggerDepth,
        String lastError, OffsetDateTime createdAt, OffsetDateTime deadAt, TriggerId triggerId,
        ExecutionId rootExecutionId, String orderingKey, String payload) {
}
