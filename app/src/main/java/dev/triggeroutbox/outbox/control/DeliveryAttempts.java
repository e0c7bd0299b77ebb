package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.platform.HousekeepingJob;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The delivery log (V19): every attempt of a row that came to an end. The attempt that delivered is read from the row's
 * {@code delivery_history} entry (its claim time and HTTP status are kept there, so a delivery writes nothing more);
 * every other attempt from {@code delivery_attempts}, as the finishing statements of dispatch/control/Claims and the
 * lease recovery wrote it. Forgotten with the delivery history.
 */
@ApplicationScoped
public class DeliveryAttempts implements HousekeepingJob {

    /** Once a minute, as the history. */
    static final long PRUNE_EVERY_MILLIS = 60_000;
    /** Entries per delete: one short transaction, whatever the backlog. */
    static final int PRUNE_CHUNK = 10_000;
    /** The most attempts one row's log answers: a row has at most 1,000 attempts (maxAttempts). */
    static final int MOST = 1_000;

    /** One attempt: from its claim ({@code startedAt}, database clock) for {@code durationMillis} to its end. */
    public record Attempt(int attempt, OffsetDateTime startedAt, long durationMillis, String node, String outcome,
            Integer httpStatus, String error, String answer) {
    }

    /** Kept as long as the delivery history: the same setting (DeliveryHistory declares it). */
    @Inject
    @ConfigProperty(name = "outbox.history.retention-hours", defaultValue = "168")
    int retentionHours;

    @Inject
    Jdbc jdbc;

    @Override
    public Pruning pruning() {
        return new Pruning("delivery attempts", "outbox.history.retention-hours", retentionHours, PRUNE_EVERY_MILLIS, """
                DELETE FROM delivery_attempts
                WHERE ctid = ANY (ARRAY(
                    SELECT ctid FROM delivery_attempts
                    WHERE finished_at < now() - ? * interval '1 hour'    -- 1: retention
                    LIMIT ?))                                            -- 2: chunk
                """, PRUNE_CHUNK);
    }

    /** The attempts of one row, first first (a replayed dead letter's attempts count from 1 again). */
    public List<Attempt> of(OutboxId row) {
        return jdbc.list("""
                SELECT * FROM (
                    SELECT attempt, finished_at - duration_ms * interval '1 millisecond' AS started_at, duration_ms, node,
                           outcome, http_status, error, answer, finished_at
                    FROM delivery_attempts
                    WHERE outbox_id = ?                                  -- row
                    UNION ALL
                    -- the attempt that delivered, as the history keeps it (finished before V19: no claim time, no entry)
                    SELECT attempt_count, claimed_at,
                           greatest(0, round(extract(epoch FROM finished_at - claimed_at) * 1000))::bigint, finished_by,
                           'delivered', http_status, NULL, NULL, finished_at
                    FROM delivery_history
                    WHERE outbox_id = ? AND outcome = 'delivered' AND claimed_at IS NOT NULL   -- row
                ) attempts
                ORDER BY finished_at, attempt
                LIMIT ?                                                  -- most
                """, p -> p.uuid(row.value()).uuid(row.value()).integer(MOST),
                rs -> new Attempt(rs.getInt(1), rs.getObject(2, OffsetDateTime.class), rs.getLong(3), rs.getString(4),
                        rs.getString(5), (Integer) rs.getObject(6), rs.getString(7), rs.getString(8)));
    }
}
