package dev.triggeroutbox.bench;

import dev.triggeroutbox.dispatch.control.Claims;
import dev.triggeroutbox.outbox.entity.ClaimToken;

import dev.triggeroutbox.testkit.Progress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Part 4: the claim statement's latency with a small and a large backlog of due rows. The product's
 * claim, verbatim, is run from here with the dispatcher paused, each execution in a transaction that is
 * rolled back, so every run sees the same table; the median of several timed runs (after warm-up runs)
 * is the figure. One {@code EXPLAIN (ANALYZE, BUFFERS)} per size, also rolled back, shows where the time goes.
 */
final class BacklogPhase {

    private static final int WARMUP_RUNS = 3;
    private static final int TIMED_RUNS = 15;
    private static final int INSERT_CHUNK = 250_000;

    private BacklogPhase() {
    }

    static Results.Backlog run(Bench bench) throws Exception {
        Settings s = bench.settings();
        OutboxTables t = bench.tables();
        Progress.say("[4/5] backlog: claim of %d rows with %,d and %,d due rows", s.batchSize(), s.backlogSmall(),
                s.backlogLarge());
        bench.pause();
        t.truncate("outbox");
        fill(bench, s.backlogSmall());
        Results.ClaimTiming small = time(bench, s.backlogSmall());
        Progress.say("  %,9d due: median %.3f ms (min %.3f, max %.3f)", small.dueRows(), small.medianMs(),
                small.minMs(), small.maxMs());
        fill(bench, s.backlogLarge() - s.backlogSmall());
        Results.ClaimTiming large = time(bench, s.backlogLarge());
        Progress.say("  %,9d due: median %.3f ms (min %.3f, max %.3f)", large.dueRows(), large.medianMs(),
                large.minMs(), large.maxMs());
        t.truncate("outbox");
        Results.Backlog backlog = new Results.Backlog(s.batchSize(), small, large);
        Progress.say("  %,d / %,d = %.2f (target <= 2)", s.backlogLarge(), s.backlogSmall(), backlog.ratio());
        return backlog;
    }

    private static void fill(Bench bench, int rows) throws Exception {
        try (Connection con = bench.db().connect()) {
            for (int done = 0; done < rows; done += INSERT_CHUNK) {
                bench.tables().insertDue(con, Math.min(INSERT_CHUNK, rows - done));
                if (rows > INSERT_CHUNK) {
                    Progress.say("    %,d of %,d rows written", Math.min(rows, done + INSERT_CHUNK), rows);
                }
            }
        }
        bench.tables().vacuumAnalyze("outbox");
    }

    private static Results.ClaimTiming time(Bench bench, long due) throws SQLException {
        int batch = bench.settings().batchSize();
        long count = bench.tables().count("outbox");
        if (count != due) {
            throw new IllegalStateException("backlog: expected " + due + " rows, found " + count);
        }
        double[] ms = new double[TIMED_RUNS];
        String plan;
        try (Connection con = bench.db().connect()) {
            con.setAutoCommit(false);
            try (PreparedStatement claim = con.prepareStatement(ClaimSql.PRODUCT)) {
                for (int i = 0; i < WARMUP_RUNS + TIMED_RUNS; i++) {
                    long start = System.nanoTime();
                    int rows = claim(claim, batch);
                    double elapsed = (System.nanoTime() - start) / 1e6;
                    con.rollback();
                    if (rows != batch) {
                        throw new IllegalStateException("backlog: the claim took " + rows + " rows, not " + batch);
                    }
                    if (i >= WARMUP_RUNS) {
                        ms[i - WARMUP_RUNS] = elapsed;
                    }
                }
            }
            try (PreparedStatement explain = con.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) " + ClaimSql.PRODUCT)) {
                unpausedHere(con);
                bind(explain, batch);
                StringBuilder text = new StringBuilder();
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        text.append(rs.getString(1)).append('\n');
                    }
                }
                plan = text.toString();
            }
            con.rollback();
        }
        Arrays.sort(ms);
        return new Results.ClaimTiming(due, TIMED_RUNS, ms[TIMED_RUNS / 2], ms[0], ms[TIMED_RUNS - 1], plan);
    }

    private static int claim(PreparedStatement claim, int batch) throws SQLException {
        unpausedHere(claim.getConnection());
        bind(claim, batch);
        int rows = 0;
        try (ResultSet rs = claim.executeQuery()) {
            while (rs.next()) {
                rs.getString("payload");
                rows++;
            }
        }
        return rows;
    }

    /**
     * The claim takes nothing while dispatching is paused: in the harness's own transaction (rolled back after each
     * claim) the switch says resumed, while the server's dispatcher still sees it paused.
     */
    private static void unpausedHere(Connection con) throws SQLException {
        try (PreparedStatement ps = con.prepareStatement("UPDATE dispatcher_state SET paused = false")) {
            ps.executeUpdate();
        }
    }

    /** Binds the product's claim as a node with nothing in flight binds it: no app or trigger passed over. */
    private static void bind(PreparedStatement ps, int batch) throws SQLException {
        Claims.Room nothingInFlight = new Claims.Room(List.of(), List.of(), Map.of(), Map.of(), batch, batch);
        Claims.bind(ps, "bench-backlog", ClaimToken.random(), batch, ClaimSql.LEASE_MILLIS, null,
                nothingInFlight);
    }
}
