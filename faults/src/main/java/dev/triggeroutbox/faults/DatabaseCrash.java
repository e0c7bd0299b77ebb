package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Scenario 4: PostgreSQL crashes mid-run (SIGKILL to the postmaster and every backend) and is started again
 * on the same data after a while; nobody touches the nodes. They recover by themselves; no acknowledged
 * enqueue is lost; no claim stays past its lease longer than the nodes' recovery cadence.
 */
final class DatabaseCrash extends Scenario {

    DatabaseCrash() {
        super(4, "PostgreSQL killed mid-run and started again");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID app = app(number, 1);
        Settings s = h.settings;
        try (Receiver receiver = Receiver.start()) {
            receiver.delay(50);
            h.rest.webhookTrigger(h.cluster.anyUp(), app, receiver.url(), 10);
            Ledger ledger = new Ledger();
            Map<Node, double[]> before = h.counters();
            int[] incarnations = h.cluster.nodes.stream().mapToInt(Node::incarnation).toArray();
            long restarted;
            long readyMillis;
            Thread watcher;
            AtomicReference<Double> overdue = new AtomicReference<>(0.0);
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
                sleepSeconds(5);
                long acknowledgedBefore = ledger.size();
                h.db.crash();
                Progress.say("scenario 4: PostgreSQL killed (%,d rows acknowledged so far); down for %d s",
                        acknowledgedBefore, s.pgDownSeconds());
                sleepSeconds(s.pgDownSeconds());
                h.db.restart();
                restarted = System.nanoTime();
                Progress.say("scenario 4: PostgreSQL started again on the same data");
                readyMillis = awaitAllReady(h, Duration.ofMinutes(2));
                watcher = new Thread(() -> watchLeases(h, overdue), "lease-watcher");
                watcher.setDaemon(true);
                watcher.start();
                sleepSeconds(10);
            }
            h.compare(ledger, Map.of(app, receiver), restarted, Duration.ofMinutes(3), v);
            h.countersSince(before, v);
            watcher.interrupt();
            // leases are looked for every quarter lease (at least every poll), then a claim follows at once
            double allowed = (s.leaseMillis() / 4.0 + 2 * s.pollMillis() + 2_000) / 1000.0;
            v.figure(
                    "every node ready again %.1f s after PostgreSQL was back, none restarted; longest a claim stayed past "
                            + "its lease: %.1f s (allowed %.1f s)",
                    readyMillis / 1000.0, overdue.get(), allowed);
            v.require(readyMillis < Duration.ofMinutes(2).toMillis(),
                    "not every node was ready again within 2 minutes");
            for (int i = 0; i < incarnations.length; i++) {
                v.require(h.cluster.nodes.get(i).incarnation() == incarnations[i], "%s had to be restarted",
                        h.cluster.nodes.get(i));
            }
            v.require(overdue.get() <= allowed, "a claim stayed %.1f s past its lease (allowed %.1f s)", overdue.get(),
                    allowed);
        }
    }

    /** Until the outbox of this scenario is empty: the longest time any claim has been past its lease. */
    private void watchLeases(Harness h, AtomicReference<Double> overdue) {
        long end = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < end) {
            try (Connection con = h.db.connect(); Statement st = con.createStatement(); ResultSet rs = st.executeQuery("""
                    SELECT coalesce(extract(epoch FROM max(now() - lease_expires_at)), 0), count(*)
                    FROM outbox WHERE app_id = '%s'""".formatted(app(number, 1)))) {
                rs.next();
                overdue.accumulateAndGet(rs.getDouble(1), Math::max);
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // the database may still be recovering
            }
        }
    }

    private static long awaitAllReady(Harness h, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        for (Node n : h.cluster.nodes) {
            while (!h.rest.ready(n) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
        }
        return (System.nanoTime() - start) / 1_000_000;
    }
}
