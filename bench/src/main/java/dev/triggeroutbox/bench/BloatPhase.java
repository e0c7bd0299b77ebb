package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Part 5: drain throughput while another session holds a snapshot open. A feeder keeps a backlog of
 * due rows in front of the running dispatcher (bulk inserts whenever fewer than {@code TARGET} are
 * waiting), and deliveries per second are read from the no-op handler's counter: first a baseline
 * window, then a window during which another session holds a REPEATABLE READ transaction open (so no
 * row deleted meanwhile can be vacuumed, and every claim walks over the dead ones), then a window after
 * it closes.
 */
final class BloatPhase {

    private static final int CHUNK = 5_000;
    private static final int TARGET = 20_000;
    private static final int SLICE_SECONDS = 10;

    private BloatPhase() {
    }

    static Results.Bloat run(Bench bench) throws Exception {
        Settings s = bench.settings();
        OutboxTables t = bench.tables();
        Progress.say("[5/5] bloat: baseline %d s, snapshot held %d s, after %d s (backlog kept near %,d rows)",
                s.bloatWindowSeconds(), s.bloatHoldSeconds(), s.bloatWindowSeconds(), TARGET);
        bench.pause();
        t.truncate("outbox", "delivery_history");
        t.vacuumAnalyze("outbox");
        Feeder feeder = new Feeder(bench);
        Thread feeding = new Thread(feeder, "bench-feeder");
        feeding.start();
        Results.Throughput baseline;
        Results.Throughput held;
        Results.Throughput heldLast;
        Results.Throughput after;
        long dead;
        try {
            t.paused(false);
            Thread.sleep(2_000); // into steady state
            baseline = window(bench, feeder, "baseline", s.bloatWindowSeconds())[0];
            try (Connection snapshot = bench.db().connect()) {
                snapshot.setAutoCommit(false);
                snapshot.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                try (Statement st = snapshot.createStatement();
                        ResultSet rs = st.executeQuery("SELECT count(*) FROM outbox")) {
                    rs.next(); // the snapshot is taken now and held until the rollback below
                }
                Results.Throughput[] w = window(bench, feeder, "snapshot held", s.bloatHoldSeconds());
                held = w[0];
                heldLast = w[1];
                dead = t.deadTuples("outbox");
                snapshot.rollback();
            }
            after = window(bench, feeder, "after", s.bloatWindowSeconds())[0];
        } finally {
            feeder.stop();
            feeding.join();
        }
        if (feeder.failure.get() != null) {
            throw new IllegalStateException("bloat: the feeder failed", feeder.failure.get());
        }
        Bench.await("bloat backlog delivered", feeder.inserted.get(), feeder::handledSinceStart, 30);
        Bench.await("bloat rows finished", 1, () -> t.count("outbox") == 0 ? 1 : 0, 30);
        long deadLetters = t.count("dead_letters");
        bench.pause();
        t.truncate("outbox");
        if (deadLetters != 0) {
            throw new IllegalStateException("bloat: " + deadLetters + " rows dead-lettered");
        }
        Results.Bloat bloat = new Results.Bloat(s.bloatHoldSeconds(), baseline, held, heldLast, after, dead);
        Progress.say("  held / baseline = %.2f (target >= 0.6); last %d s of the hold: %.2f; after / baseline = %.2f",
                held.perSecond() / baseline.perSecond(), (int) heldLast.seconds(),
                heldLast.perSecond() / baseline.perSecond(), after.perSecond() / baseline.perSecond());
        return bloat;
    }

    /** Deliveries per second over the whole window, and over its last slice. */
    private static Results.Throughput[] window(Bench bench, Feeder feeder, String label, int seconds) throws Exception {
        long h0 = feeder.handledSinceStart();
        long t0 = System.nanoTime();
        long end = t0 + seconds * 1_000_000_000L;
        long sliceStart = t0;
        long sliceHandled = h0;
        Results.Throughput last = null;
        while (System.nanoTime() < end) {
            long sliceEnd = Math.min(end, sliceStart + SLICE_SECONDS * 1_000_000_000L);
            Thread.sleep(Math.max(0, (sliceEnd - System.nanoTime()) / 1_000_000));
            long now = System.nanoTime();
            long h = feeder.handledSinceStart();
            last = new Results.Throughput(label + " (last slice)", h - sliceHandled, (now - sliceStart) / 1e9);
            Progress.say("    %-13s %3.0f s: %,7.0f rows/s (last %.0f s)%s", label, (now - t0) / 1e9, last.perSecond(),
                    last.seconds(), "snapshot held".equals(label)
                            ? String.format(", outbox dead tuples %,d",
                                    bench.tables().deadTuples("outbox"))
                            : "");
            sliceStart = now;
            sliceHandled = h;
        }
        long h1 = feeder.handledSinceStart();
        Results.Throughput whole = new Results.Throughput(label, h1 - h0, (System.nanoTime() - t0) / 1e9);
        return new Results.Throughput[] {whole, last};
    }

    /** Keeps the backlog near TARGET rows: inserted minus delivered, the latter from the handler's counter. */
    private static final class Feeder implements Runnable {
        private final Bench bench;
        private final long handledAtStart;
        final AtomicLong inserted = new AtomicLong();
        final AtomicReference<Exception> failure = new AtomicReference<>();
        private volatile boolean running = true;

        Feeder(Bench bench) throws Exception {
            this.bench = bench;
            this.handledAtStart = bench.api().handled();
        }

        long handledSinceStart() throws Exception {
            return bench.api().handled() - handledAtStart;
        }

        void stop() {
            running = false;
        }

        @Override
        public void run() {
            try (Connection con = bench.db().connect()) {
                while (running) {
                    if (inserted.get() - handledSinceStart() < TARGET) {
                        bench.tables().insertDue(con, CHUNK);
                        inserted.addAndGet(CHUNK);
                    } else {
                        Thread.sleep(20);
                    }
                }
            } catch (Exception e) {
                failure.set(e);
            }
        }
    }
}
