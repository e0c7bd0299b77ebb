package dev.triggeroutbox.console.control;

import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Where;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Ordered lanes that do not flow, for operators: lanes blocked behind a dead head (triggers with
 * {@code "onDeadLetter":"block"}, lane_blocks) and lanes whose head is retrying. Skip lets a blocked lane move on
 * (the dead letter stays); retry replays a blocked lane's dead head (it heads its lane again) or makes a retrying
 * head due now.
 */
@ApplicationScoped
public class Lanes {

    /** A lane that does not flow: {@code blocked} (its head is a dead letter) or {@code retrying} (its head failed and waits). */
    public record Stuck(String state, UUID lane, UUID appId, UUID triggerId, String orderingKey, UUID headId,
            int attempts, String lastError, OffsetDateTime since, long waiting) {
    }

    /** What an operator's action did to a lane: the head row it concerned. */
    public record Acted(String state, UUID headId) {
    }

    @Inject
    Jdbc jdbc;

    @Inject
    DeadLetters deadLetters;

    /**
     * Up to {@code limit} blocked lanes (oldest block first), then retrying ones (longest waiting first), of
     * {@code app} (null: every app). {@code waiting}: the lane's rows in the outbox behind its head.
     */
    public List<Stuck> stuck(UUID app, int limit) {
        Where blockedOf = new Where().uuid("b.app_id = ?", app);
        Where retryingOf = new Where().uuid("o.app_id = ?", app);
        String sql = """
                (SELECT 'blocked' AS state, b.lane, b.app_id, d.trigger_id, b.ordering_key, d.id AS head_id,
                        d.attempt_count, d.last_error, b.blocked_at AS since,
                        (SELECT count(*) FROM outbox e
                         WHERE coalesce(e.trigger_id, e.app_id) = b.lane AND e.ordering_key = b.ordering_key) AS waiting
                 FROM lane_blocks b JOIN dead_letters d ON d.id = b.dead_letter_id
                 WHERE %s                                                            -- app
                 ORDER BY b.blocked_at, b.lane, b.ordering_key
                 LIMIT ?)
                UNION ALL
                (SELECT 'retrying', coalesce(o.trigger_id, o.app_id), o.app_id, o.trigger_id, o.ordering_key, o.id,
                        o.attempt_count, o.last_error, o.next_attempt_at,
                        (SELECT count(*) FROM outbox e
                         WHERE coalesce(e.trigger_id, e.app_id) = coalesce(o.trigger_id, o.app_id)
                           AND e.ordering_key = o.ordering_key AND e.lane_seq > o.lane_seq)
                 FROM outbox o
                 WHERE o.ordering_key IS NOT NULL AND o.last_error IS NOT NULL AND o.claim_token IS NULL
                   AND %s                                                            -- app
                   AND NOT EXISTS (SELECT 1 FROM outbox e
                                   WHERE coalesce(e.trigger_id, e.app_id) = coalesce(o.trigger_id, o.app_id)
                                     AND e.ordering_key = o.ordering_key AND e.lane_seq < o.lane_seq)
                 ORDER BY o.next_attempt_at DESC, o.id
                 LIMIT ?)
                """.formatted(blockedOf.sql(), retryingOf.sql());
        List<Stuck> lanes = jdbc.list(sql, p -> p.where(blockedOf).integer(limit).where(retryingOf).integer(limit),
                rs -> new Stuck(rs.getString(1), rs.getObject(2, UUID.class), rs.getObject(3, UUID.class),
                        rs.getObject(4, UUID.class), rs.getString(5), rs.getObject(6, UUID.class), rs.getInt(7),
                        rs.getString(8), rs.getObject(9, OffsetDateTime.class), rs.getLong(10)));
        return lanes.size() <= limit ? lanes : List.copyOf(lanes.subList(0, limit));
    }

    public boolean triggerExists(UUID trigger) {
        return jdbc.first("SELECT 1 FROM triggers WHERE id = ?", p -> p.uuid(trigger), rs -> true).isPresent();
    }

    /** Lets a blocked lane move on past its dead head (the dead letter stays); empty when the lane is not blocked. */
    @Transactional(Transactional.TxType.REQUIRED)
    public Optional<Acted> skip(UUID lane, String orderingKey) {
        return jdbc.first("DELETE FROM lane_blocks WHERE lane = ? AND ordering_key = ? RETURNING dead_letter_id",
                p -> p.uuid(lane).text(orderingKey), rs -> new Acted("blocked", rs.getObject(1, UUID.class)));
    }

    /**
     * Retries a lane's head now: a blocked lane's dead head is replayed (it heads its lane again, and its block goes
     * with its dead letter); a retrying head not in flight is made due now. Empty when the lane has neither.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Optional<Acted> retry(UUID lane, String orderingKey, String by) {
        Optional<UUID> blockedBy = jdbc.first(
                "SELECT dead_letter_id FROM lane_blocks WHERE lane = ? AND ordering_key = ? FOR UPDATE",
                p -> p.uuid(lane).text(orderingKey), rs -> rs.getObject(1, UUID.class));
        if (blockedBy.isPresent()) {
            UUID head = blockedBy.get();
            return deadLetters.replay(new OutboxId(head), by)
                    ? Optional.of(new Acted("blocked", head))
                    : Optional.empty();
        }
        return jdbc.first("""
                UPDATE outbox o SET next_attempt_at = now()
                WHERE coalesce(o.trigger_id, o.app_id) = ? AND o.ordering_key = ?   -- the lane
                  AND o.claim_token IS NULL AND o.held_due_at IS NULL AND o.lane_due_at IS NULL
                  AND o.next_attempt_at > now()
                  AND NOT EXISTS (SELECT 1 FROM outbox e
                                  WHERE coalesce(e.trigger_id, e.app_id) = coalesce(o.trigger_id, o.app_id)
                                    AND e.ordering_key = o.ordering_key AND e.lane_seq < o.lane_seq)
                RETURNING o.id
                """, p -> p.uuid(lane).text(orderingKey), rs -> new Acted("retrying", rs.getObject(1, UUID.class)));
    }
}
