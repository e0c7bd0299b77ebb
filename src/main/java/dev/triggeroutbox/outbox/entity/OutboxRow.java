package dev.triggeroutbox.outbox.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;

/**
 * An outbox row as the admin side reads it. The dispatcher never loads rows through JPA (it claims
 * and finishes whole batches in single statements, see {@code Claims}); this entity is read-only.
 */
@Entity
@Table(name = "outbox")
public class OutboxRow {

    @Id
    private UUID id;

    @Column(name = "app_id", updatable = false, insertable = false)
    private UUID appId;

    @Column(name = "source_kind", updatable = false, insertable = false)
    private String sourceKind;

    @Column(name = "trigger_id", updatable = false, insertable = false)
    private UUID triggerId;

    @Column(name = "script_id", updatable = false, insertable = false)
    private UUID scriptId;

    @Column(name = "reply_to", updatable = false, insertable = false)
    private UUID replyTo;

    @Column(name = "origin_principal", updatable = false, insertable = false)
    private String originPrincipal;

    @Column(name = "trigger_depth", updatable = false, insertable = false)
    private int triggerDepth;

    @Column(name = "root_execution_id", updatable = false, insertable = false)
    private UUID rootExecutionId;

    @Column(name = "attempt_count", updatable = false, insertable = false)
    private int attemptCount;

    @Column(name = "max_attempts", updatable = false, insertable = false)
    private Integer maxAttempts;

    @Column(name = "next_attempt_at", updatable = false, insertable = false)
    private OffsetDateTime nextAttemptAt;

    @Column(name = "claimed_at", updatable = false, insertable = false)
    private OffsetDateTime claimedAt;

    @Column(name = "claimed_by", updatable = false, insertable = false)
    private String claimedBy;

    @Column(name = "lease_expires_at", updatable = false, insertable = false)
    private OffsetDateTime leaseExpiresAt;

    @Column(name = "claim_token", updatable = false, insertable = false)
    private UUID claimToken;

    @Column(name = "last_error", updatable = false, insertable = false)
    private String lastError;

    @Column(name = "created_at", updatable = false, insertable = false)
    private OffsetDateTime createdAt;

    protected OutboxRow() {
        // for JPA
    }

    public OutboxId id() {
        return new OutboxId(id);
    }

    public AppId appId() {
        return new AppId(appId);
    }

    /** Empty when the stored wire name is not one this node knows. */
    public Optional<SourceKind> sourceKind() {
        return SourceKind.fromWire(sourceKind);
    }

    public String sourceKindWire() {
        return sourceKind;
    }

    public Optional<TriggerId> triggerId() {
        return Optional.ofNullable(TriggerId.ofNullable(triggerId));
    }

    public Optional<ScriptId> scriptId() {
        return Optional.ofNullable(ScriptId.ofNullable(scriptId));
    }

    public Optional<OutboxId> replyTo() {
        return Optional.ofNullable(OutboxId.ofNullable(replyTo));
    }

    public Optional<String> originPrincipal() {
        return Optional.ofNullable(originPrincipal);
    }

    public int triggerDepth() {
        return triggerDepth;
    }

    public Optional<ExecutionId> rootExecutionId() {
        return Optional.ofNullable(ExecutionId.ofNullable(rootExecutionId));
    }

    public int attemptCount() {
        return attemptCount;
    }

    public Optional<Integer> maxAttempts() {
        return Optional.ofNullable(maxAttempts);
    }

    public OffsetDateTime nextAttemptAt() {
        return nextAttemptAt;
    }

    public Optional<OffsetDateTime> claimedAt() {
        return Optional.ofNullable(claimedAt);
    }

    public Optional<String> claimedBy() {
        return Optional.ofNullable(claimedBy);
    }

    public Optional<OffsetDateTime> leaseExpiresAt() {
        return Optional.ofNullable(leaseExpiresAt);
    }

    public boolean isClaimed() {
        return claimToken != null;
    }

    public Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }

    public OffsetDateTime createdAt() {
        return createdAt;
    }
}
