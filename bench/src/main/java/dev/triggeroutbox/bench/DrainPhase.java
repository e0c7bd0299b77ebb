package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.time.Duration;
import java.time.OffsetDateTime;

/**
 * Part 1: N rows already due, a no-op handler, time until all are delivered — (a) the WAR's own
 * dispatcher on WildFly, (b) db-scheduler, (c) the raw SQL floor. Each first drains a smaller
 * warm-up load that is not measured, so none of the three is measured cold.
 */
final class DrainPhase {

    private DrainPhase() {
    }

    static Results.Drain run(Bench bench) throws Exception {
        Settings s = bench.settings();
        Progress.say("[1/5] drain: %,d due rows each, no-op handler; warm-up %,d rows each first", s.drainRows(),
                s.warmupRows());
        Results.Throughput ours;
        Results.Throughput dbScheduler;
        Results.Throughput floor;

        ours = noop(bench);
        long batches = bench.tables().finishingTransactions();
        Progress.say("  (a) Trigger Outbox on WildFly: %,d rows in %.2f s = %,.0f rows/s (%,d batches, %.1f rows each)",
                ours.count(), ours.seconds(), ours.perSecond(), batches, ours.count() / (double) batches);

        // none with -Dbench.drain-keys=0 (a WAR from before ordered lanes has no ordering_key to write)
        Results.Throughput keyed = s.drainKeys() > 0 ? keyed(bench, s.drainRows(), s.drainKeys()) : null;
        if (keyed != null) {
            Progress.say("  (a') the same, in %,d ordered lanes: %,d rows in %.2f s = %,.0f rows/s (%.2f of (a))",
                    s.drainKeys(),
                    keyed.count(), keyed.seconds(), keyed.perSecond(), keyed.perSecond() / ours.perSecond());
        }

        try (DbSchedulerDrain peer = new DbSchedulerDrain(bench.db(), s.workerThreads(), s.pollMillis())) {
            peer.createTable();
            dbScheduler(bench, peer, s.warmupRows());
            dbScheduler = dbScheduler(bench, peer, s.drainRows());
        }
        Progress.say("  (b) db-scheduler: %,d rows in %.2f s = %,.0f rows/s", dbScheduler.count(),
                dbScheduler.seconds(), dbScheduler.perSecond());

        floor(bench, s.warmupRows());
        floor = floor(bench, s.drainRows());
        Progress.say("  (c) raw SQL floor: %,d rows in %.2f s = %,.0f rows/s", floor.count(), floor.seconds(),
                floor.perSecond());

        Results.Drain drain = new Results.Drain(s.drainRows(), ours, batches, dbScheduler, floor, s.drainKeys(), keyed);
        Progress.say("  (a)/(c) = %.2f (target >= 0.6)   (a)/(b) = %.2f (target >= 4)", drain.oursToFloor(),
                drain.oursToDbScheduler());
        return drain;
    }

    /** Drain (a) alone: the no-op handler's rows through the WAR's dispatcher, after a warm-up. */
    static Results.Throughput noop(Bench bench) throws Exception {
        Settings s = bench.settings();
        dispatcher(bench, bench.tables(), s.warmupRows(), 0, "Trigger Outbox (WildFly)");
        return dispatcher(bench, bench.tables(), s.drainRows(), 0, "Trigger Outbox (WildFly)");
    }

    /** Drain (a'): the same rows spread over {@code keys} ordered lanes, each lane delivered one row at a time. */
    static Results.Throughput keyed(Bench bench, int rows, int keys) throws Exception {
        OutboxTables t = bench.tables();
        bench.pause();
        t.truncate("outbox", "delivery_history");
        t.insertKeyed(rows, keys);
        t.vacuumAnalyze("outbox");
        OffsetDateTime start = t.paused(false);
        Bench.await("(a') delivered", rows, t::finished, 30);
        OffsetDateTime end = t.lastFinished();
        long delivered = t.delivered();
        bench.pause();
        if (delivered != rows || t.count("dead_letters") != 0) {
            throw new IllegalStateException("keyed drain: " + delivered + " of " + rows + " delivered");
        }
        return new Results.Throughput("Trigger Outbox, " + keys + " lanes", rows,
                Duration.between(start, end).toNanos() / 1e9);
    }

    /**
     * Paused, the rows are written in one statement; resuming starts the clock (database time) and the
     * last finishing transaction stops it (database time too). The dispatcher notices the resume on its
     * next tick, so up to one poll interval is part of the figure, as it is for an operator.
     */
    static Results.Throughput dispatcher(Bench bench, OutboxTables t, int rows, int pad, String label)
            throws Exception {
        return dispatcher(bench, t, rows, pad, label, new CpuMeter.Sample[2]);
    }

    /**
     * As above; {@code cpu} receives the machine's CPU times ({@link CpuMeter}) at the resume and when the last row
     * was gone.
     */
    static Results.Throughput dispatcher(Bench bench, OutboxTables t, int rows, int pad, String label,
            CpuMeter.Sample[] cpu)
            throws Exception {
        bench.pause();
        t.truncate("outbox", "delivery_history");
        t.insertDue(rows, pad);
        t.vacuumAnalyze("outbox");
        CpuMeter meter = new CpuMeter(bench.server());
        cpu[0] = meter.sample();
        OffsetDateTime start = t.paused(false);
        Bench.await("(a) delivered", rows, t::finished, 30);
        cpu[1] = meter.sample();
        OffsetDateTime end = t.lastFinished();
        long delivered = t.delivered();
        long dead = t.count("dead_letters");
        bench.pause();
        if (delivered != rows || dead != 0) {
            throw new IllegalStateException(
                    label + ": " + delivered + " of " + rows + " delivered, " + dead + " dead-lettered");
        }
        return new Results.Throughput(label, rows, Duration.between(start, end).toNanos() / 1e9);
    }

    private static Results.Throughput dbScheduler(Bench bench, DbSchedulerDrain peer, int rows) throws Exception {
        bench.tables().truncate("scheduled_tasks");
        peer.insertDue(rows);
        bench.tables().vacuumAnalyze("scheduled_tasks");
        Results.Throughput result = peer.run(rows);
        long left = bench.tables().count("scheduled_tasks");
        if (left != 0 || result.count() != rows) {
            throw new IllegalStateException(
                    "drain (b): " + result.count() + " of " + rows + " completed, " + left + " rows left");
        }
        return result;
    }

    private static Results.Throughput floor(Bench bench, int rows) throws Exception {
        OutboxTables t = bench.tables();
        t.truncate("outbox");
        t.insertDue(rows);
        t.vacuumAnalyze("outbox");
        Results.Throughput result = RawFloorDrain.run(bench.db(), bench.settings().batchSize());
        long left = t.count("outbox");
        if (left != 0 || result.count() != rows) {
            throw new IllegalStateException(
                    "drain (c): " + result.count() + " of " + rows + " deleted, " + left + " rows left");
        }
        return result;
    }
}
