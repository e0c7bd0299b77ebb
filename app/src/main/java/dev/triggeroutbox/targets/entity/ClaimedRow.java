package dev.triggeroutbox.targets.entity;

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
 * is the W3C trace context the row was written with (null: none), sent with every delivery. {@code orderingKey} is
 * the key of the row's lane (null: none); the claim takes a lane's rows one at a time, in enqueue order.
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
        long startBy,
        String orderingKey) {

    /** A row without a trace context or a start deadline (tests, tools): its delivery may start whenever a thread is free. */
    public ClaimedRow(OutboxId id, AppId appId, String sourceKind, TriggerId triggerId, ScriptId scriptId,
            OutboxId replyTo,
            String payload, String originPrincipal, int triggerDepth, ExecutionId rootExecutionId, int attemptCount,
            Integer rowMaxAttempts, OffsetDateTime createdAt, OffsetDateTime dueAt, TriggerTarget trigger) {
        this(id, appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal, triggerDepth,
                rootExecutionId,
                attemptCount, rowMaxAttempts, createdAt, dueAt, trigger, null, Long.MAX_VALUE, null);
    }

    /** A row in no lane. */
    public ClaimedRow(OutboxId id, AppId appId, String sourceKind, TriggerId triggerId, ScriptId scriptId,
            OutboxId replyTo,
            String payload, String originPrincipal, int triggerDepth, ExecutionId rootExecutionId, int attemptCount,
            Integer rowMaxAttempts, OffsetDateTime createdAt, OffsetDateTime dueAt, TriggerTarget trigger,
            TraceContext trace,
            long startBy) {
        this(id, appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal, triggerDepth,
                rootExecutionId,
                attemptCount, rowMaxAttempts, createdAt, dueAt, trigger, trace, startBy, null);
    }

    /**
     * The same row with the latest instant ({@link System#nanoTime()}) at which its delivery may start and
     * still end within the claim's lease; a delivery waiting for a thread past it is given back unstarted.
     */
    public ClaimedRow startingBy(long nanos) {
        return new ClaimedRow(id, appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                triggerDepth,
                rootExecutionId, attemptCount, rowMaxAttempts, createdAt, dueAt, trigger, trace, nanos, orderingKey);
    }

    /** The same row sent with {@code context} (an attempt's span, {@code platform.Tracing}) instead of the one it was written with. */
    public ClaimedRow tracedBy(TraceContext context) {
        return new ClaimedRow(id, appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                triggerDepth,
                rootExecutionId, attemptCount, rowMaxAttempts, createdAt, dueAt, trigger, context, startBy,
                orderingKey);
    }

    /** The same row in the lane of {@code key} (null: none). */
    public ClaimedRow inLane(String key) {
        return new ClaimedRow(id, appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                triggerDepth,
                rootExecutionId, attemptCount, rowMaxAttempts, createdAt, dueAt, trigger, trace, startBy, key);
    }

    /**
     * The trigger's side of the join; absent when the row names no trigger or the trigger was deleted.
     * {@code previousSecret} is the webhook secret the last rotation replaced, which still signs until
     * {@code previousSecretExpiresAt} (both null when there is none). {@code targetKey} is the record key of a
     * kafka target (orderingKey, rowId, appId; null for the other types). The claim never takes a row of a
     * disabled trigger (its rows are held), so a claimed row's trigger is enabled.
     */
    public record TriggerTarget(String targetType, String target, String secret, Integer maxAttempts,
            String previousSecret, OffsetDateTime previousSecretExpiresAt, String targetKey) {

        /** A target without a rotated-out secret. */
        public TriggerTarget(String targetType, String target, String secret, Integer maxAttempts) {
            this(targetType, target, secret, maxAttempts, null, null, null);
        }

        /** A target without a record key (every type but kafka). */
        public TriggerTarget(String targetType, String target, String secret, Integer maxAttempts,
                String previousSecret, OffsetDateTime previousSecretExpiresAt) {
            this(targetType, target, secret, maxAttempts, previousSecret, previousSecretExpiresAt, null);
        }

        @Override
        public String toString() {
            return "TriggerTarget[" + targetType + " " + target + ", maxAttempts=" + maxAttempts
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
