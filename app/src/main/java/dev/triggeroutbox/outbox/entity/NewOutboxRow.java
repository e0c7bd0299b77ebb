package dev.triggeroutbox.outbox.entity;

import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * What a producer writes: one row for one delivery. {@code payload} is JSON text; the database
 * checks it. Build with {@link #to(AppId, SourceKind, TriggerId, String)} and the {@code with...} methods.
 */
public record NewOutboxRow(
        AppId appId,
        SourceKind sourceKind,
        TriggerId triggerId,
        ScriptId scriptId,
        OutboxId replyTo,
        String payload,
        String originPrincipal,
        int triggerDepth,
        ExecutionId rootExecutionId,
        Integer maxAttempts,
        OffsetDateTime deliverAt,
        OutboxId parentId,
        String orderingKey) {

    public NewOutboxRow {
        Objects.requireNonNull(appId, "appId");
        Objects.requireNonNull(sourceKind, "sourceKind");
        Objects.requireNonNull(payload, "payload");
        if (triggerDepth < 0) {
            throw new IllegalArgumentException("triggerDepth must not be negative");
        }
        if (maxAttempts != null && (maxAttempts < 1 || maxAttempts > 1000)) {
            throw new IllegalArgumentException("maxAttempts must be between 1 and 1000");
        }
        OrderingKey.check(orderingKey);
    }

    /** A row without an ordering key. */
    public NewOutboxRow(AppId appId, SourceKind sourceKind, TriggerId triggerId, ScriptId scriptId, OutboxId replyTo,
            String payload, String originPrincipal, int triggerDepth, ExecutionId rootExecutionId, Integer maxAttempts,
            OffsetDateTime deliverAt, OutboxId parentId) {
        this(appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal, triggerDepth, rootExecutionId,
                maxAttempts, deliverAt, parentId, null);
    }

    /** A row for one trigger, delivered as soon as possible, depth 0, its own root. */
    public static NewOutboxRow to(AppId appId, SourceKind kind, TriggerId triggerId, String payload) {
        return new NewOutboxRow(appId, kind, triggerId, null, null, payload, null, 0, null, null, null, null, null);
    }

    public NewOutboxRow withScript(ScriptId script) {
        return new NewOutboxRow(appId, sourceKind, triggerId, script, replyTo, payload, originPrincipal,
                triggerDepth, rootExecutionId, maxAttempts, deliverAt, parentId, orderingKey);
    }

    public NewOutboxRow withReplyTo(OutboxId reply) {
        return new NewOutboxRow(appId, sourceKind, triggerId, scriptId, reply, payload, originPrincipal,
                triggerDepth, rootExecutionId, maxAttempts, deliverAt, parentId, orderingKey);
    }

    public NewOutboxRow withOrigin(String principal) {
        return new NewOutboxRow(appId, sourceKind, triggerId, scriptId, replyTo, payload, principal,
                triggerDepth, rootExecutionId, maxAttempts, deliverAt, parentId, orderingKey);
    }

    public NewOutboxRow withLineage(ExecutionId root, int depth) {
        return new NewOutboxRow(appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                depth, root, maxAttempts, deliverAt, parentId, orderingKey);
    }

    public NewOutboxRow withMaxAttempts(Integer attempts) {
        return new NewOutboxRow(appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                triggerDepth, rootExecutionId, attempts, deliverAt, parentId, orderingKey);
    }

    /** The row whose delivery writes this one (lineage). */
    public NewOutboxRow withParent(OutboxId parent) {
        return new NewOutboxRow(appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                triggerDepth, rootExecutionId, maxAttempts, deliverAt, parent, orderingKey);
    }

    public NewOutboxRow deliverAt(OffsetDateTime at) {
        return new NewOutboxRow(appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                triggerDepth, rootExecutionId, maxAttempts, at, parentId, orderingKey);
    }

    /** The row in the lane of {@code key} (null: none): delivered one at a time, in enqueue order, with its trigger's other rows of that key. */
    public NewOutboxRow withOrderingKey(String key) {
        return new NewOutboxRow(appId, sourceKind, triggerId, scriptId, replyTo, payload, originPrincipal,
                triggerDepth, rootExecutionId, maxAttempts, deliverAt, parentId, key);
    }
}
