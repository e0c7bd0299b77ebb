package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Scenario 5: one row whose handler halts the JVM of the node delivering it (the supervisor restarts the node,
 * as systemd would). Attempts are counted at claim, so after {@code maxAttempts} claims, each of which killed a
 * node, the row is dead-lettered, while another app's webhook rows keep flowing on the other nodes.
 */
final class PoisonRow extends Scenario {

    static final int MAX_ATTEMPTS = 3;

    PoisonRow() {
        super(5, "a handler that halts its JVM on one poison row");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID app = app(number, 1);
        UUID poisonApp = app(number, 2);
        Settings s = h.settings;
        try (Receiver receiver = Receiver.start()) {
            Node admin = h.cluster.anyUp();
            h.rest.webhookTrigger(admin, app, receiver.url(), 10);
            h.rest.handlerTrigger(admin, poisonApp, "faults-poison", MAX_ATTEMPTS);
            Ledger ledger = new Ledger();
            int deathsBefore = h.cluster.unexpectedDeaths();
            UUID poison;
            long deadAfter;
            long healed;
            Stall stall = new Stall(h.cluster, receiver);
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
                stall.start();
                sleepSeconds(3);
                List<UUID> ids = h.rest.publish(h.cluster.anyUp(), poisonApp, "docs", "{\"poison\":true}", null);
                if (ids == null || ids.size() != 1) {
                    throw new IllegalStateException("the poison row was not acknowledged");
                }
                poison = ids.get(0);
                long published = System.nanoTime();
                Progress.say("scenario 5: poison row %s enqueued (max attempts %d)", poison, MAX_ATTEMPTS);
                long deadline = published + Duration.ofMinutes(6).toNanos();
                while (deadLetterAttempts(h, poison) < 0 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                deadAfter = (System.nanoTime() - published) / 1_000_000;
                h.cluster.awaitAllUp(Cluster.START_TIMEOUT);
                healed = System.nanoTime();
                sleepSeconds(3);
            }
            stall.interrupt();
            int deaths = h.cluster.unexpectedDeaths() - deathsBefore;
            int attempts = deadLetterAttempts(h, poison);
            h.compare(ledger, Map.of(app, receiver), healed, Duration.ofMinutes(3), v);
            long gap = stall.longestMillis;
            v.figure("poison row %s: %d JVM halts, dead-lettered after %d claims, %.1f s after it was enqueued; "
                    + "longest time the other app got nothing while a node was up: %.1f s; no node up at all for %.1f s",
                    poison, deaths, attempts, deadAfter / 1000.0, gap / 1000.0, stall.noneUpMillis / 1000.0);
            v.require(attempts > 0, "the poison row was not dead-lettered");
            v.require(deaths == MAX_ATTEMPTS, "%d JVM halts, expected exactly max attempts (%d)", deaths, MAX_ATTEMPTS);
            v.require(gap < s.leaseMillis() + 2_000,
                    "the other app's deliveries stopped for %.1f s while a node was up",
                    gap / 1000.0);
        }
    }

    /** The dead letter's attempt count, or -1 while the row is not dead. */
    private static int deadLetterAttempts(Harness h, UUID id) throws Exception {
        try (Connection con = h.db.connect();
                PreparedStatement ps = con.prepareStatement("SELECT attempt_count FROM dead_letters WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : -1;
            }
        }
    }

    /**
     * Samples every 100 ms: the longest stretch in which some node was up and the receiver got nothing (the
     * rest stopped flowing), and how long no node was up at all (each halted node restarting; nothing can flow).
     */
    private static final class Stall extends Thread {
        private final Cluster cluster;
        private final Receiver receiver;
        volatile long longestMillis;
        volatile long noneUpMillis;

        Stall(Cluster cluster, Receiver receiver) {
            super("stall-watch");
            setDaemon(true);
            this.cluster = cluster;
            this.receiver = receiver;
        }

        @Override
        public void run() {
            long seen = receiver.requests();
            long stalled = 0;
            while (!isInterrupted()) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
                long now = receiver.requests();
                if (cluster.up().isEmpty()) {
                    noneUpMillis += 100;
                    stalled = 0;
                } else if (now == seen) {
                    stalled += 100;
                    longestMillis = Math.max(longestMillis, stalled);
                } else {
                    stalled = 0;
                }
                seen = now;
            }
        }
    }
}
