package dev.triggeroutbox.triggers.entity;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.targets.entity.KafkaKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A trigger: events of one source kind of one app go to one target. State changes go through
 * methods (EclipseLink's change tracking misses field writes from other classes).
 */
@Entity
@Table(name = "triggers")
public class Trigger {

    @Id
    private UUID id;

    @Column(name = "app_id", nullable = false, updatable = false)
    private UUID appId;

    @Column(name = "source_kind", nullable = false)
    private String sourceKind;

    @Column(name = "target_type", nullable = false)
    private String targetType;

    @Column(name = "target", nullable = false)
    private String target;

    /** Which of a row's values keys the records of a kafka target (orderingKey, rowId, appId); null for the other types. */
    @Column(name = "target_key")
    private String targetKey;

    @Column(name = "secret")
    private String secret;

    /** Until when the secret a rotation replaced still signs; written only by the rotation's statement (Triggers). */
    @Column(name = "previous_secret_expires_at", insertable = false, updatable = false)
    private OffsetDateTime previousSecretExpiresAt;

    @Column(name = "script_id")
    private UUID scriptId;

    @Column(name = "max_attempts")
    private Integer maxAttempts;

    @Column(name = "enabled", nullable = false)
    private boolean enabled;

    /** What its ordered lanes do when a head dead-letters ({@link LanePolicy}). */
    @Column(name = "on_dead_letter", nullable = false)
    private String onDeadLetter = LanePolicy.CONTINUE.wire();

    /** On hold: its rows wait, unclaimed. Written only by the hold's statement (Triggers), never by a replace. */
    @Column(name = "held", insertable = false, updatable = false)
    private boolean held;

    @Column(name = "schedule")
    private String schedule;

    @Column(name = "timezone")
    private String timezone;

    @Column(name = "misfire")
    private String misfire;

    /** Written only by the firing statement (CronFires), never by JPA: see V4. */
    @Column(name = "next_fire_at", insertable = false, updatable = false)
    private OffsetDateTime nextFireAt;

    @Column(name = "last_fired_at", insertable = false, updatable = false)
    private OffsetDateTime lastFiredAt;

    @Column(name = "created_at", nullable = false, updatable = false)
    private OffsetDateTime createdAt;

    @Column(name = "updated_at", nullable = false)
    private OffsetDateTime updatedAt;

    protected Trigger() {
        // for JPA
    }

    public Trigger(AppId app, SourceKind kind, TargetType type, String target, String secret) {
        this.id = UUID.randomUUID();
        this.appId = app.value();
        this.sourceKind = kind.wire();
        this.targetType = type.wire();
        this.target = target;
        this.secret = secret;
        this.enabled = true;
        this.createdAt = OffsetDateTime.now(ZoneOffset.UTC);
        this.updatedAt = createdAt;
    }

    public TriggerId id() {
        return new TriggerId(id);
    }

    public AppId appId() {
        return new AppId(appId);
    }

    public SourceKind sourceKind() {
        return SourceKind.fromWire(sourceKind).orElseThrow();
    }

    public TargetType targetType() {
        return TargetType.fromWire(targetType).orElseThrow();
    }

    public String target() {
        return target;
    }

    /** The record key of a kafka target ({@link KafkaKey}); empty for the other types. */
    public Optional<KafkaKey> targetKey() {
        return Optional.ofNullable(targetKey).flatMap(KafkaKey::fromWire);
    }

    /** The webhook signing secret; shown to the caller once, at creation and at each rotation. */
    public Optional<String> secret() {
        return Optional.ofNullable(secret);
    }

    /** Until when deliveries are also signed with the secret the last rotation replaced (past: no longer). */
    public Optional<OffsetDateTime> previousSecretExpiresAt() {
        return Optional.ofNullable(previousSecretExpiresAt);
    }

    public Optional<ScriptId> scriptId() {
        return Optional.ofNullable(ScriptId.ofNullable(scriptId));
    }

    public Optional<Integer> maxAttempts() {
        return Optional.ofNullable(maxAttempts);
    }

    /** The schedule of a cron trigger. */
    public Optional<Schedule> schedule() {
        if (schedule == null) {
            return Optional.empty();
        }
        return Optional.of(new Schedule(schedule, timezone,
                Schedule.Misfire.fromWire(misfire).orElse(Schedule.Misfire.FIRE_ONCE)));
    }

    /** When a cron trigger fires next, once the firing pass has computed it. */
    public Optional<OffsetDateTime> nextFireAt() {
        return Optional.ofNullable(nextFireAt);
    }

    public Optional<OffsetDateTime> lastFiredAt() {
        return Optional.ofNullable(lastFiredAt);
    }

    /** Sets or clears the schedule; returns whether when it fires changed. */
    public boolean reschedule(Schedule newSchedule) {
        String cron = newSchedule == null ? null : newSchedule.cron();
        String zone = newSchedule == null ? null : newSchedule.timezone();
        boolean changed = !Objects.equals(cron, schedule) || !Objects.equals(zone, timezone);
        this.schedule = cron;
        this.timezone = zone;
        this.misfire = newSchedule == null ? null : newSchedule.misfire().wire();
        touch();
        return changed;
    }

    public LanePolicy onDeadLetter() {
        return LanePolicy.fromWire(onDeadLetter).orElse(LanePolicy.CONTINUE);
    }

    /** Sets what its ordered lanes do when a head dead-letters (null: continue). */
    public void onDeadLetter(LanePolicy policy) {
        this.onDeadLetter = (policy == null ? LanePolicy.CONTINUE : policy).wire();
        touch();
    }

    public boolean held() {
        return held;
    }

    public boolean enabled() {
        return enabled;
    }

    public OffsetDateTime createdAt() {
        return createdAt;
    }

    public OffsetDateTime updatedAt() {
        return updatedAt;
    }

    /** {@code key}: the record key of a kafka target (its default when null), ignored for the other types. */
    public void change(SourceKind kind, TargetType type, String newTarget, KafkaKey key, ScriptId script,
            Integer attempts,
            boolean enable) {
        this.sourceKind = kind.wire();
        this.targetType = type.wire();
        this.target = newTarget;
        this.targetKey = type == TargetType.KAFKA ? (key == null ? KafkaKey.DEFAULT : key).wire() : null;
        this.scriptId = script == null ? null : script.value();
        this.maxAttempts = attempts;
        this.enabled = enable;
        touch();
    }

    /** Sets a new webhook signing secret (a trigger that became a webhook gets its first one). */
    public void rotateSecret(String newSecret) {
        this.secret = newSecret;
        touch();
    }

    public void enable(boolean enable) {
        this.enabled = enable;
        touch();
    }

    private void touch() {
        this.updatedAt = OffsetDateTime.now(ZoneOffset.UTC);
    }
}
