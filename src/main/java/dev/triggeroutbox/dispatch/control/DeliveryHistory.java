package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.platform.HousekeepingJob;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The retention of {@code delivery_history}: the outcome of every finished row stays answerable by
 * {@code GET /outbox/{id}} for {@code outbox.history.retention-hours}, then goes. (The rows are
 * written by the finishing statements of {@link Claims}, in the transaction that finishes the row.)
 */
@ApplicationScoped
public class DeliveryHistory implements HousekeepingJob {

    /** Once a minute: history is kept for hours, a minute more is nothing, and each pass walks an index. */
    static final long PRUNE_EVERY_MILLIS = 60_000;
    /** Rows per delete: one short transaction, whatever the backlog. */
    static final int PRUNE_CHUNK = 10_000;

    /**
     * Hours a delivered or dead outcome stays answerable. Longer: "was my event delivered?" has an
     * answer for longer, and the table grows with the delivery rate times this; at least 1.
     */
    @Inject
    @ConfigProperty(name = "outbox.history.retention-hours", defaultValue = "168")
    int retentionHours;

    /** Outcomes older than the retention go, a chunk at a time. */
    @Override
    public Pruning pruning() {
        return new Pruning("delivery history", "outbox.history.retention-hours", retentionHours, PRUNE_EVERY_MILLIS, """
                DELETE FROM delivery_history
                WHERE ctid = ANY (ARRAY(
                    SELECT ctid FROM delivery_history
                    WHERE finished_at < now() - ? * interval '1 hour'    -- 1: retention
                    LIMIT ?))                                            -- 2: chunk
                """, PRUNE_CHUNK);
    }
}
