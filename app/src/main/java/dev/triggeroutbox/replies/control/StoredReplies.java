package dev.triggeroutbox.replies.control;

import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.platform.HousekeepingJob;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The {@code replies} table, but for its writes: the dispatcher stores an answer in the same
 * transaction that finishes its row, on whichever node delivered it. This reads answers back (one
 * for {@code GET /replies/{id}}, or all those a node awaits in one statement) and forgets those
 * nobody collected within {@code outbox.reply.retention-ms}.
 */
@ApplicationScoped
public class StoredReplies implements HousekeepingJob {

    /** Every second, as when the dispatcher's tick pruned them: an answer is gone about a second after its retention. */
    static final long PRUNE_EVERY_MILLIS = 1_000;
    /** Answers per delete: one short transaction, whatever the backlog. */
    static final int PRUNE_CHUNK = 10_000;

    /**
     * What became of the row: {@code outcome} delivered with the target's body (may be null), dead with the
     * reason, or cancelled (POST /outbox/{id}/cancel) before it delivered.
     */
    public record Reply(UUID appId, OutboxId row, String outcome, String body, String error) {

        public boolean delivered() {
            return "delivered".equals(outcome);
        }

        public boolean cancelled() {
            return "cancelled".equals(outcome);
        }
    }

    /** A row still on its way to the target whose answer is awaited. */
    public record Pending(UUID appId, OutboxId row) {
    }

    @Inject
    Jdbc jdbc;

    /**
     * How long an answer stays fetchable with {@code GET /replies/{id}} after it came. Longer: callers
     * whose wait ended first may come back later, and the table holds that many minutes of answers
     * (bodies up to the webhook's answer limit); at least 1 ms.
     */
    @Inject
    @ConfigProperty(name = "outbox.reply.retention-ms", defaultValue = "600000")
    long retentionMillis;

    public Optional<Reply> find(UUID replyTo) {
        return Optional.ofNullable(answered(List.of(replyTo)).get(replyTo));
    }

    /** The answers among {@code replyTos} that are there, by reply id: one statement whatever their number. */
    public Map<UUID, Reply> answered(Collection<UUID> replyTos) {
        return jdbc.list("SELECT id, app_id, outbox_id, outcome, body, error FROM replies WHERE id = ANY (?)",  // reply ids
                p -> p.array("uuid", replyTos.toArray(UUID[]::new)),
                rs -> Map.entry(rs.getObject(1, UUID.class), new Reply(rs.getObject(2, UUID.class),
                        new OutboxId(rs.getObject(3, UUID.class)), rs.getString(4), rs.getString(5), rs.getString(6))))
                .stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    public Optional<Pending> pending(UUID replyTo) {
        return jdbc.first("SELECT app_id, id FROM outbox WHERE reply_to = ? LIMIT 1",
                p -> p.uuid(replyTo),
                rs -> new Pending(rs.getObject(1, UUID.class), new OutboxId(rs.getObject(2, UUID.class))));
    }

    /** Answers nobody collected within the retention go, a chunk at a time. */
    @Override
    public Pruning pruning() {
        return new Pruning("replies", "outbox.reply.retention-ms", retentionMillis, PRUNE_EVERY_MILLIS, """
                DELETE FROM replies
                WHERE id = ANY (ARRAY(
                    SELECT id FROM replies
                    WHERE created_at < now() - ? * interval '1 millisecond'  -- 1: retention
                    LIMIT ?))                                                -- 2: chunk
                """, PRUNE_CHUNK);
    }
}
