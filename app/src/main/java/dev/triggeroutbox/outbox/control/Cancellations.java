package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Where;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Cancelling rows that are still in the outbox. A row nobody is delivering leaves at once for the delivery
 * history with the outcome {@code cancelled} (and a waiting invoke gets that answer); a row in flight is only
 * marked {@code cancel_requested}: its attempt runs to its end, and the fenced finish (Claims) moves it to
 * history as cancelled unless the attempt delivered. Whether a row counts as in flight is decided under its
 * row lock, as the claim and the finish decide it, so no cancel falls between them.
 */
@ApplicationScoped
public class Cancellations {

    /** What a cancel did to a row of the outbox. */
    public enum Done {
        /** It was pending or scheduled (or its lease had expired): it is in history as cancelled. */
        CANCELLED,
        /** It is being delivered: marked, it ends cancelled unless this attempt delivers. */
        REQUESTED,
        /** Not in the outbox (finished, dead, unknown), or the caller may not reach its app: nothing changed. */
        NOT_HERE
    }

    /** What a bulk cancel did: rows cancelled now, rows in flight marked, all their ids, and whether others match. */
    public record Bulk(int cancelled, int requested, List<UUID> ids, boolean more) {
    }

    /** Moves the given rows (locked by the statement before) that nobody is delivering to history as cancelled. */
    private static final String MOVE = """
            , gone AS (
                DELETE FROM outbox o
                WHERE o.id = ANY (ARRAY(SELECT id FROM picked))
                  AND (o.claim_token IS NULL OR o.lease_expires_at <= now())   -- nobody delivers it now
                RETURNING o.*
            ), flagged AS (
                UPDATE outbox o SET cancel_requested = true
                WHERE o.id = ANY (ARRAY(SELECT id FROM picked))
                  AND o.claim_token IS NOT NULL AND o.lease_expires_at > now()  -- in flight: its finish decides
                RETURNING o.id
            ), history AS (
                INSERT INTO delivery_history (outbox_id, app_id, source_kind, trigger_id, root_execution_id,
                        trigger_depth, outcome, attempt_count, last_error, created_at, parent_id)
                SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth,
                       'cancelled', attempt_count, last_error, created_at, parent_id
                FROM gone
            ), answered AS (
                INSERT INTO replies (id, app_id, outbox_id, outcome, error)
                SELECT reply_to, app_id, id, 'cancelled', 'cancelled' FROM gone WHERE reply_to IS NOT NULL
                ON CONFLICT (id) DO NOTHING
            )
            SELECT id, true FROM gone
            UNION ALL
            SELECT id, false FROM flagged
            """;

    @Inject
    Jdbc jdbc;

    /**
     * Cancels one row if it is in the outbox and {@code mayCancel} accepts its app. The row is locked first
     * (waiting, for a few milliseconds, on a claim or finish that holds it), so the choice between cancelling
     * now and marking it is made on the row as it is.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Done cancel(OutboxId id, Predicate<AppId> mayCancel) {
        return jdbc.inConnection(con -> {
            Optional<AppId> app = Jdbc.first(con, "SELECT app_id FROM outbox WHERE id = ? FOR UPDATE",
                    p -> p.uuid(id.value()), rs -> new AppId(rs.getObject(1, UUID.class)));
            if (app.isEmpty() || !mayCancel.test(app.get())) {
                return Done.NOT_HERE;
            }
            boolean cancelled = Jdbc.first(con, "WITH picked AS (SELECT ?::uuid AS id)" + MOVE, // row
                    p -> p.uuid(id.value()), rs -> rs.getBoolean(2)).orElseThrow();
            return cancelled ? Done.CANCELLED : Done.REQUESTED;
        });
    }

    /** One row the move answers: its id, and whether it was cancelled now (or only marked). */
    private record Moved(UUID id, boolean cancelled) {
    }

    /**
     * Cancels up to {@code limit} rows that match {@code filter} and are not already marked. Rows a claim or
     * finish holds at this moment are passed over (SKIP LOCKED: no wait, no deadlock with the dispatcher) and
     * reported as {@code more}, as are the rows past the limit.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Bulk cancelMatching(CancelFilter filter, int limit) {
        Where where = filter.where();
        String sql = """
                WITH picked AS (
                    SELECT id FROM outbox
                    WHERE %s AND NOT cancel_requested                        -- filter
                    LIMIT ?
                    FOR UPDATE SKIP LOCKED
                )""".formatted(where.sql()) + MOVE;
        return jdbc.inConnection(con -> {
            List<Moved> moved = Jdbc.list(con, sql, p -> p.where(where).integer(limit),
                    rs -> new Moved(rs.getObject(1, UUID.class), rs.getBoolean(2)));
            int cancelled = (int) moved.stream().filter(Moved::cancelled).count();
            boolean more = Jdbc.first(con,
                    "SELECT EXISTS (SELECT 1 FROM outbox WHERE " + where.sql() + " AND NOT cancel_requested)",
                    p -> p.where(where), rs -> rs.getBoolean(1)).orElseThrow();
            return new Bulk(cancelled, moved.size() - cancelled, moved.stream().map(Moved::id).toList(), more);
        });
    }
}
