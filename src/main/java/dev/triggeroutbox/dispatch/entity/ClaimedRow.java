package dev.triggeroutbox.dispatch.entity;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import java.time.OffsetDateTime;

/**
 * A row as one claim returned it, joined with its trigger's target (null fields when the trigger is
 * gone). {@code sourceKind} is the stored wire name, unparsed: an unknown one is dead-lettered. {@code trace}
 * is the W3C trace context the row was written with (null: none), sent with every delivery.
 */
public record ClaimedRow(
        OutboxId id,
        AppId appId,
        String sourceKind,
        TriggerId triggerId,
        ScriptId scriptId,
        OutboxId replyTo,
        String payload,
        String originPrincipal,
        int triggerDepth,
        ExecutionId rootExecutionId,
        int attemptCount,
        Integer rowMaxAttempts,
        OffsetDateTime createdAt,
        OffsetDateTime dueAt,
        TriggerTarget trigger,
        TraceContext trace,
        long startBy) {

    /** A row without a trace context or a start deadline (tests, tools): its delivery may start whenever a thread is free. */
    public ClaimedRow(OutboxId id, AppId appId, String sourceKind, TriggerId triggerId, ScriptId scriptId, OutboxId replyTo,
            String payload, String originPrincipal, int triggerDepth, ExecutionId rootExecutionId, int attemptCount,
            Integer rowMaxAttempts, OffsetDateTime createdAt, OffsetDateTime dueAt, TriggerTarget trigger) {
        this(id, appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal, triggerDepth, rootExecutionId,
                attemptCount, rowMaxAttempts, createdAt, dueAt, trigger, null, Long.MAX_VALUE);
    }

    /**
     * The same row with the latest instant ({@link System#nanoTime()}) at which its delivery may start and
     * still end within the claim's lease; a delivery waiting for a thread past it is given back unstarted.
     */
    public ClaimedRow startingBy(long nanos) {
        return new ClaimedRow(id, appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal, triggerDepth,
                rootExecutionId, attemptCount, rowMaxAttempts, createdAt, dueAt, trigger, trace, nanos);
    }

    /**
     * The trigger's side of the join; absent when the row names no trigger or the trigger was deleted.
     * {@code previousSecret} is the webhook secret the last rotation replaced, which still signs until
     * {@code previousSecretExpiresAt} (both null when there is none). {@code targetKey} is the record key of a
     * kafka target (orderingKey, rowId, appId; null for the other types).
     */
    public record TriggerTarget(String targetType, String target, String secret, boolean enabled, Integer maxAttempts,
            String previousSecret, OffsetDateTime previousSecretExpiresAt, String targetKey) {

        /** A target without a rotated-out secret. */
        public TriggerTarget(String targetType, String target, String secret, boolean enabled, Integer maxAttempts) {
            this(targetType, target, secret, enabled, maxAttempts, null, null, null);
        }

        /** A target without a record key (every type but kafka). */
        public TriggerTarget(String targetType, String target, String secret, boolean enabled, Integer maxAttempts,
                String previousSecret, OffsetDateTime previousSecretExpiresAt) {
            this(targetType, target, secret, enabled, maxAttempts, previousSecret, previousSecretExpiresAt, null);
        }

        @Override
        public String toString() {
            return "TriggerTarget[" + targetType + " " + target + ", enabled=" + enabled + ", maxAttempts=" + maxAttempts
                    + ", secrets hidden]";
        }
    }

    /** The row's own limit, else its trigger's, else the configured default. */
    public int maxAttempts(int defaultMaxAttempts) {
        if (rowMaxAttempts != null) {
            return rowMaxAttempts;
        }
        if (trigger != null && trigger.maxAttempts() != null) {
            return trigger.maxAttempts();
        }
        return defaultMaxAttempts;
    }
}
