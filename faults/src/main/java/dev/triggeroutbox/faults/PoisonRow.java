package dev.triggeroutbox.faults;

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
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
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
            int deaths = h.cluster.unexpectedDeaths() - deathsBefore;
            int attempts = deadLetterAttempts(h, poison);
            h.compare(ledger, Map.of(app, receiver), healed, Duration.ofMinutes(3), v);
            long gap = longestGap(receiver);
            v.figure("poison row %s: %d JVM halts, dead-lettered after %d claims, %.1f s after it was enqueued; "
                    + "longest pause between two deliveries of the other app: %.1f s",
                    poison, deaths, attempts, deadAfter / 1000.0, gap / 1000.0);
            v.require(attempts > 0, "the poison row was not dead-lettered");
            v.require(deaths == MAX_ATTEMPTS, "%d JVM halts, expected exactly max attempts (%d)", deaths, MAX_ATTEMPTS);
            v.require(gap < s.leaseMillis() + 2_000, "the other app's deliveries stopped for %.1f s", gap / 1000.0);
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

    /** The longest time between two consecutive first deliveries the receiver saw, in ms. */
    static long longestGap(Receiver receiver) {
        long[] times = receiver.hits().values().stream().mapToLong(hit -> hit.firstNanos).sorted().toArray();
        long gap = 0;
        for (int i = 1; i < times.length; i++) {
            gap = Math.max(gap, times[i] - times[i - 1]);
        }
        return gap / 1_000_000;
    }
}
