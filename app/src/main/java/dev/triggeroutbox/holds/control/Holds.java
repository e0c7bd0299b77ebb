package dev.triggeroutbox.holds.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Where;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * Holds on apps ({@code app_holds}) and the held rows of the outbox. What a hold means is decided by the claim,
 * which passes over the rows of held apps and of held or disabled triggers (Claims reads them in its own
 * statement, so a hold committed before a claim starts is always seen). What this class adds is the upkeep that
 * keeps a held backlog out of every claim's way: {@link #settle} parks held rows (their due time moves to
 * {@code held_due_at}, {@code next_attempt_at} to {@code 'infinity'}, past every "due now" scan), and a release
 * puts them back ({@link #unpark}), so they come due in the order they were due. Nothing here claims, spends an
 * attempt or dead-letters.
 */
@ApplicationScoped
public class Holds {

    /** Rows one settle parks, and parked rows it looks at for a release it missed: one short statement each. */
    static final int SETTLE_CHUNK = 10_000;

    /** An app on hold: since when, and who put it there. */
    public record AppHold(UUID appId, OffsetDateTime heldAt, String heldBy) {
    }

    /** What one settle did: rows parked because they are held, rows put back because they no longer are. */
    public record Settled(int parked, int unparked) {
    }

    @Inject
    Jdbc jdbc;

    /** Where the last look for parked rows that are no longer held ended ({@code held_due_at}); null: the start. */
    private volatile OffsetDateTime releaseCursor;

    /** Puts {@code app} on hold; false when it was on hold already (nothing changed). In the caller's transaction. */
    @Transactional(Transactional.TxType.REQUIRED)
    public boolean holdApp(AppId app, String principal) {
        return jdbc.update("""
                INSERT INTO app_holds (app_id, held_by) VALUES (?, ?)   -- app, who
                ON CONFLICT (app_id) DO NOTHING
                """, p -> p.uuid(app.value()).text(principal)) == 1;
    }

    /**
     * Takes {@code app} off hold and puts its parked rows back (those of triggers still held stay): how many, or
     * empty when it was not on hold. In the caller's transaction, so the rows come due when the release commits.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public OptionalInt releaseApp(AppId app) {
        if (jdbc.update("DELETE FROM app_holds WHERE app_id = ?", p -> p.uuid(app.value())) == 0) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(unpark(app, null));
    }

    /** The app's hold, if it is on hold. */
    public Optional<AppHold> appHold(AppId app) {
        List<AppHold> found = appHolds(app);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /** Every app on hold ({@code only}: that one app, or null), longest held first. */
    public List<AppHold> appHolds(AppId only) {
        Where one = new Where().uuid("app_id = ?", only == null ? null : only.value());
        return jdbc.list("""
                SELECT app_id, held_at, held_by FROM app_holds
                WHERE %s                                               -- one app, or all
                ORDER BY held_at, app_id
                """.formatted(one.sql()), p -> p.where(one),
                rs -> new AppHold(rs.getObject(1, UUID.class), rs.getObject(2, OffsetDateTime.class), rs.getString(3)));
    }

    /** Why a new row for {@code trigger} of {@code app} would wait (its app or trigger is held, or the trigger disabled), or empty. */
    public Optional<String> heldBecause(AppId app, TriggerId trigger) {
        return jdbc.first("""
                SELECT EXISTS (SELECT 1 FROM app_holds WHERE app_id = ?),                        -- app
                       EXISTS (SELECT 1 FROM triggers WHERE app_id = ? AND id = ? AND held)       -- app, trigger
                """, p -> p.uuid(app.value()).uuid(app.value()).uuid(trigger.value()),
                rs -> rs.getBoolean(1)
                        ? "app " + app + " is on hold"
                        : rs.getBoolean(2) ? "trigger " + trigger + " is on hold" : null);
    }

    /**
     * Puts back the parked rows of {@code app} (of its {@code trigger} only, when given) that nothing holds any more:
     * each comes due at the time it was due when it was parked. In the caller's transaction; every such row in one
     * statement, so a release is whole or not at all. Call after a release, after a trigger is enabled again and
     * after one is deleted (its rows then dead-letter as rows of a trigger that does not exist, as before).
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public int unpark(AppId app, TriggerId trigger) {
        Where one = new Where().uuid("o.trigger_id = ?", trigger == null ? null : trigger.value());
        return jdbc.update("""
                UPDATE outbox o
                SET next_attempt_at = o.held_due_at, held_due_at = NULL
                WHERE o.app_id = ?                                                  -- app
                  AND %s                                                            -- one trigger, or all
                  AND o.held_due_at IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM app_holds h WHERE h.app_id = o.app_id)
                  AND NOT EXISTS (SELECT 1 FROM triggers t
                                  WHERE t.app_id = o.app_id AND t.id = o.trigger_id AND (t.held OR NOT t.enabled))
                """.formatted(one.sql()), p -> p.uuid(app.value()).where(one));
    }

    /**
     * The dispatcher's upkeep of holds, on every tick: parks up to a chunk of held rows that are still in the due
     * order (rows written for a held app or trigger after its hold, rows back from an attempt that was in flight
     * when the hold came, every row of a trigger just disabled), and puts back up to a chunk of parked rows that
     * nothing holds any more (a release whose own statement ran beside a settle that parked behind it). Each
     * statement commits by itself; the first finds held rows through {@code outbox_app_due} per held app, the
     * second walks {@code outbox_parked} from where its last look ended, so neither walks a whole held backlog.
     */
    @Transactional(Transactional.TxType.NOT_SUPPORTED)
    public Settled settle() {
        return jdbc.inConnection(con -> {
            if (!con.getAutoCommit()) {
                con.setAutoCommit(true);
            }
            int parked = Jdbc.update(con, """
                    WITH held AS (
                        -- per app: held whole, or the ids of its held and disabled triggers
                        SELECT app_id, bool_or(whole) AS whole, array_agg(trigger_id) FILTER (WHERE trigger_id IS NOT NULL) AS triggers
                        FROM (SELECT app_id, true AS whole, NULL::uuid AS trigger_id FROM app_holds
                              UNION ALL
                              SELECT app_id, false, id FROM triggers WHERE held OR NOT enabled) h
                        GROUP BY app_id
                    ), picked AS (
                        SELECT x.id FROM held h
                        CROSS JOIN LATERAL (
                            SELECT o.id FROM outbox o
                            -- app_id as a range of one, first in the order, as outbox_app_due has it (see Claims)
                            WHERE o.app_id >= h.app_id AND o.app_id <= h.app_id
                              AND o.claim_token IS NULL AND o.next_attempt_at < 'infinity'
                              AND (h.whole OR o.trigger_id = ANY (h.triggers))
                            ORDER BY o.app_id, o.next_attempt_at
                            LIMIT ?                                                    -- chunk
                            FOR UPDATE SKIP LOCKED
                        ) x
                        LIMIT ?                                                        -- chunk
                    )
                    UPDATE outbox o
                    SET held_due_at = o.next_attempt_at, next_attempt_at = 'infinity'
                    WHERE o.id = ANY (ARRAY(SELECT id FROM picked)) AND o.claim_token IS NULL
                    """, p -> p.integer(SETTLE_CHUNK).integer(SETTLE_CHUNK));
            return new Settled(parked, unparkMissed(con));
        });
    }

    /** The second half of {@link #settle}: parked rows past the cursor that nothing holds, put back. */
    private int unparkMissed(Connection con) {
        return Jdbc.first(con, """
                WITH looked AS (
                    SELECT id, app_id, trigger_id, held_due_at FROM outbox
                    WHERE held_due_at IS NOT NULL AND held_due_at > coalesce(?::timestamptz, '-infinity')  -- cursor
                    ORDER BY held_due_at
                    LIMIT ?                                                            -- chunk
                ), free AS (
                    SELECT l.id FROM looked l
                    WHERE NOT EXISTS (SELECT 1 FROM app_holds h WHERE h.app_id = l.app_id)
                      AND NOT EXISTS (SELECT 1 FROM triggers t
                                      WHERE t.app_id = l.app_id AND t.id = l.trigger_id AND (t.held OR NOT t.enabled))
                ), unparked AS (
                    UPDATE outbox o
                    SET next_attempt_at = o.held_due_at, held_due_at = NULL
                    WHERE o.id = ANY (ARRAY(SELECT id FROM free)) AND o.held_due_at IS NOT NULL
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM unparked), (SELECT count(*) FROM looked), (SELECT max(held_due_at) FROM looked)
                """, p -> p.timestamp(releaseCursor).integer(SETTLE_CHUNK), rs -> {
            // a full look goes on from where it ended next time; a short one has reached the end: from the start again
            releaseCursor = rs.getInt(2) == SETTLE_CHUNK ? rs.getObject(3, OffsetDateTime.class) : null;
            return rs.getInt(1);
        }).orElseThrow();
    }
}
