package dev.triggeroutbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The harness's SQL on the product's tables: the pause switch, bulk rows already due, counts and
 * resets. Rows are written the way the product writes them (same columns), but in bulk.
 */
final class OutboxTables {

    private final Database db;
    private final UUID app;
    private final UUID trigger;

    OutboxTables(Database db, UUID app, UUID trigger) {
        this.db = db;
        this.app = app;
        this.trigger = trigger;
    }

    UUID app() {
        return app;
    }

    UUID trigger() {
        return trigger;
    }

    /** Sets the cluster-wide pause switch; returns the database's clock at the change. Nodes see it on their next tick. */
    OffsetDateTime paused(boolean paused) throws SQLException {
        try (Connection con = db.connect(); PreparedStatement ps = con.prepareStatement("""
                UPDATE dispatcher_state SET paused = ?, changed_by = 'bench', changed_at = now()   -- 1: paused
                RETURNING clock_timestamp()""")) {
            ps.setBoolean(1, paused);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class);
            }
        }
    }

    /**
     * Writes {@code count} rows for the benchmark's trigger in one statement, all due already (spread
     * over the last {@code count} milliseconds, oldest first), payload {@code {"seq": n}}, or with
     * {@code pad > 0} {@code {"seq": n, "pad": "xx…"}} ({@link SignedPosts#payload}).
     */
    void insertDue(Connection con, int count, int pad) throws SQLException {
        Jdbc.update(con, """
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, root_execution_id, next_attempt_at)
                SELECT gen_random_uuid(), ?, 'kv', ?,                      -- 1, 2: app, trigger
                       CASE WHEN ? > 0 THEN jsonb_build_object('seq', g, 'pad', repeat('x', ?))   -- 3, 4: pad
                            ELSE jsonb_build_object('seq', g) END,
                       gen_random_uuid(), now() - g * interval '1 millisecond'
                FROM generate_series(1, ?) g                               -- 5: how many
                """, app, trigger, pad, pad, count);
    }

    void insertDue(Connection con, int count) throws SQLException {
        insertDue(con, count, 0);
    }

    void insertDue(int count) throws SQLException {
        insertDue(count, 0);
    }

    /**
     * As {@link #insertDue(Connection, int, int)}, the rows spread round-robin over {@code keys} ordering keys (lanes
     * of the benchmark's trigger), each lane's rows enqueued in their due order, oldest first.
     */
    void insertKeyed(int count, int keys) throws SQLException {
        try (Connection con = db.connect()) {
            Jdbc.update(con, """
                    INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, root_execution_id, next_attempt_at,
                                        ordering_key)
                    SELECT gen_random_uuid(), ?, 'kv', ?,                  -- 1, 2: app, trigger
                           jsonb_build_object('seq', g), gen_random_uuid(), now() - g * interval '1 millisecond',
                           'key-' || (g % ?)                               -- 3: keys
                    FROM generate_series(1, ?) g                           -- 4: how many
                    ORDER BY g DESC                                        -- lane_seq in due order
                    """, app, trigger, keys, count);
        }
    }

    void insertDue(int count, int pad) throws SQLException {
        try (Connection con = db.connect()) {
            insertDue(con, count, pad);
        }
    }

    /** Fresh statistics and visibility map after a bulk load, as autovacuum would give them soon after. */
    void vacuumAnalyze(String table) throws SQLException {
        try (Connection con = db.connect()) {
            Jdbc.execute(con, "VACUUM (ANALYZE) " + table);
        }
    }

    void truncate(String... tables) throws SQLException {
        try (Connection con = db.connect()) {
            Jdbc.execute(con, "TRUNCATE " + String.join(", ", tables));
        }
    }

    long count(String table) throws SQLException {
        try (Connection con = db.connect()) {
            return Jdbc.queryLong(con, "SELECT count(*) FROM " + table);
        }
    }

    /**
     * Rows finished since the history was last emptied (delivered or not): what a drain has done so far. Polled
     * while a drain runs, so it costs the database little: one kept connection (no backend started per poll), and
     * the history, which holds only the drain's rows, not the outbox, whose dead row versions a count walks.
     */
    synchronized long finished() throws SQLException {
        if (poll == null || poll.isClosed()) {
            poll = db.connect();
        }
        return Jdbc.queryLong(poll, "SELECT count(*) FROM delivery_history");
    }

    private Connection poll;

    long delivered() throws SQLException {
        try (Connection con = db.connect()) {
            return Jdbc.queryLong(con, "SELECT count(*) FROM delivery_history WHERE outcome = 'delivered'");
        }
    }

    /** When the last delivered batch was finished (the finishing transaction's start, database clock). */
    OffsetDateTime lastFinished() throws SQLException {
        try (Connection con = db.connect();
                PreparedStatement ps = con.prepareStatement(
                        "SELECT max(finished_at) FROM delivery_history");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }

    /** Finishing transactions recorded in the history: each stamps its rows with its own {@code now()}. */
    long finishingTransactions() throws SQLException {
        try (Connection con = db.connect()) {
            return Jdbc.queryLong(con, "SELECT count(DISTINCT finished_at) FROM delivery_history");
        }
    }

    long deadTuples(String table) throws SQLException {
        try (Connection con = db.connect()) {
            return Jdbc.queryLong(con, "SELECT coalesce(n_dead_tup, 0) FROM pg_stat_user_tables WHERE relname = ?",
                    table);
        }
    }
}
