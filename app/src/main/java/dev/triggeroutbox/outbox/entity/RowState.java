package dev.triggeroutbox.outbox.entity;

import java.time.OffsetDateTime;

/**
 * Where a row stands, wherever it is now (the outbox, the dead letters or the delivery history), as
 * {@code RowStatus} reads it. Fields a place does not keep are null: {@code nextAttemptAt} outside the outbox,
 * {@code finishedAt} inside it, {@code traceparent} and {@code orderingKey} in the history.
 *
 * @param status    pending, scheduled, in_flight, held, dead, delivered or cancelled
 * @param node      the node that claimed it, dead-lettered it or finished it
 * @param cancelRequested in flight and cancelled: it ends cancelled once its attempt is over, unless that attempt delivers
 * @param parentId  the row whose delivery wrote it (null: an event from outside)
 */
public record RowState(OutboxId id, AppId appId, String sourceKind, String status, int attemptCount, int triggerDepth,
        boolean cancelRequested, TriggerId triggerId, ExecutionId rootExecutionId, String lastError,
        OffsetDateTime createdAt, OffsetDateTime nextAttemptAt, OffsetDateTime finishedAt, String node,
        String traceparent, String orderingKey, OutboxId parentId) {
}
