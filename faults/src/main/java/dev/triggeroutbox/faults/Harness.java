package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What every scenario works with (the settings, the database, the cluster, the REST client) and the part
 * they share: wait for the drain with a deadline, then compare the ledger with what the receivers got.
 */
final class Harness {

    final Settings settings;
    final Postgres db;
    final Cluster cluster;
    final Rest rest;
    /** The errors of the current scenario's retried rows, as watched while it runs. */
    volatile Retries retries;

    Harness(Settings settings, Postgres db, Cluster cluster, Rest rest) {
        this.settings = settings;
        this.db = db;
        this.cluster = cluster;
        this.rest = rest;
    }

    /** Counters of every node now (per incarnation: a restarted node starts from zero). */
    Map<Node, double[]> counters() {
        Map<Node, double[]> now = new HashMap<>();
        for (Node n : cluster.up()) {
            try {
                Map<String, Double> m = rest.metrics(n);
                now.put(n, new double[] {n.incarnation(), m.getOrDefault("outbox_fenced_completions_total", 0.0),
                        m.getOrDefault("outbox_lease_recoveries_total", 0.0)});
            } catch (Exception e) {
                Progress.say("metrics of %s not read: %s", n, e.getMessage());
            }
        }
        return now;
    }

    /** Adds to the verdict the fenced completions and lease recoveries counted since {@code before}. */
    void countersSince(Map<Node, double[]> before, Verdict v) {
        Map<Node, double[]> after = counters();
        for (Map.Entry<Node, double[]> e : after.entrySet()) {
            double[] b = before.get(e.getKey());
            boolean same = b != null && b[0] == e.getValue()[0];
            v.fenced += since(same ? b[1] : 0, e.getValue()[1]);
            v.leaseRecoveries += since(same ? b[2] : 0, e.getValue()[2]);
        }
    }

    /** A counter's growth; one that went down was reset (the WAR was redeployed), and counts from zero. */
    private static long since(double before, double after) {
        return (long) (after >= before ? after - before : after);
    }

    /**
     * Waits until every acknowledged row of the ledger reached its app's receiver and the outbox holds no row
     * of these apps any more (nothing pending, nothing in flight), at most {@code deadline}; then gives late
     * duplicates a moment, and fills the verdict: sent, delivered, lost (with where each lost row stands),
     * duplicated, delivered without acknowledgement, and the time from {@code healNanos} to the last first
     * delivery. Dead letters of these apps count as lost.
     */
    void compare(Ledger ledger, Map<UUID, Receiver> receivers, long healNanos, Duration deadline, Verdict v)
            throws Exception {
        long until = System.nanoTime() + deadline.toNanos();
        boolean drained = false;
        while (System.nanoTime() < until) {
            if (missing(ledger, receivers).isEmpty() && outboxRows(receivers.keySet()) == 0) {
                drained = true;
                break;
            }
            Thread.sleep(100);
        }
        Thread.sleep(2 * settings.pollMillis() + 1_000); // late duplicates, fenced finishes
        v.sent = ledger.size();
        v.unacknowledged = ledger.unacknowledgedCount();
        List<UUID> lost = missing(ledger, receivers);
        v.lost.addAll(lost);
        v.delivered = v.sent - lost.size();
        long last = 0;
        for (UUID id : ledger.ids()) {
            Receiver.Hit hit = receivers.get(ledger.entry(id).app()).hit(id);
            if (hit != null) {
                last = Math.max(last, hit.firstNanos - healNanos);
            }
        }
        if (drained) {
            v.drainMillis = Math.max(0, last / 1_000_000);
        } else {
            v.fail("not drained within %d s after healing (%d rows of the ledger undelivered, %d rows left in the outbox)",
                    deadline.toSeconds(), lost.size(), outboxRows(receivers.keySet()));
        }
        for (Receiver r : receivers.values()) {
            r.hits().forEach((id, hit) -> {
                if (hit.count.get() > 1) {
                    Retries seen = retries;
                    v.duplicates.put(id, hit.deliveries + (seen == null ? "" : " — errors seen: " + seen.of(id)));
                }
                if (ledger.entry(id) == null) {
                    v.extra++;
                }
            });
        }
        if (!lost.isEmpty()) {
            Node node = cluster.anyUp();
            lost.stream().limit(5).forEach(id -> v.lostStatus.add(id + ": " + rest.status(node, id)));
        }
        v.require(lost.isEmpty(), "%d acknowledged row(s) lost", lost.size());
        long dead = count("SELECT count(*) FROM dead_letters WHERE app_id = ANY (?)", receivers.keySet());
        v.require(dead == 0, "%d row(s) dead-lettered", dead);
    }

    private static List<UUID> missing(Ledger ledger, Map<UUID, Receiver> receivers) {
        List<UUID> missing = new ArrayList<>();
        for (UUID id : ledger.ids()) {
            if (receivers.get(ledger.entry(id).app()).hit(id) == null) {
                missing.add(id);
            }
        }
        return missing;
    }

    /**
     * Removes what an earlier run of a scenario left of its apps (triggers, rows, dead letters, holds, lane
     * blocks), so a scenario run again starts as the first run did: its events fan out to its new receivers only.
     */
    void forget(Collection<UUID> apps) throws Exception {
        try (Connection con = db.connect()) {
            for (String table : List.of("lane_blocks", "dead_letters", "outbox", "triggers", "app_holds")) {
                try (PreparedStatement ps = con.prepareStatement("DELETE FROM " + table + " WHERE app_id = ANY (?)")) {
                    ps.setArray(1, array(con, apps));
                    ps.executeUpdate();
                }
            }
        }
    }

    long outboxRows(Collection<UUID> apps) throws Exception {
        return count("SELECT count(*) FROM outbox WHERE app_id = ANY (?)", apps);
    }

    long count(String sql, Collection<UUID> apps) throws Exception {
        try (Connection con = db.connect(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setArray(1, con.createArrayOf("uuid", apps.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Rows the node holds claimed now (its in-flight rows, as the database sees them). */
    Set<UUID> claimedBy(Node node) throws Exception {
        return ids("SELECT id FROM outbox WHERE claimed_by = ?", node.name);
    }

    Set<UUID> ids(String sql, Object... args) throws Exception {
        Set<UUID> ids = new HashSet<>();
        try (Connection con = db.connect(); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i] instanceof Collection<?> c ? array(con, c) : args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
        }
        return ids;
    }

    private static Array array(Connection con, Collection<?> c) throws Exception {
        return con.createArrayOf("uuid", c.toArray());
    }
}
