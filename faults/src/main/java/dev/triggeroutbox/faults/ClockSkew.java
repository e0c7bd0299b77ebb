package dev.triggeroutbox.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Scenario 8: one node's clock 10 minutes ahead (libfaketime preloaded into its JVM: {@code FAKETIME=+10m},
 * monotonic clocks left alone; checked by the {@code Date} header it answers with). Rows due 15 s from now,
 * published through every node, are not delivered before their due time; under load with slow answers no
 * lease is taken early (no lease recovered, nothing fenced, nothing delivered twice), and every lease the
 * skewed node takes is exactly the configured length on the database clock.
 */
final class ClockSkew extends Scenario {

    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    static final long SKEW_SECONDS = 600;

    ClockSkew() {
        super(8, "one node's clock 10 minutes off");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        if (!Files.exists(LIBFAKETIME)) {
            v.skipped = true;
            v.figure("needs libfaketime (%s): apt-get install faketime", LIBFAKETIME);
            return;
        }
        UUID app = app(number, 1);
        Settings s = h.settings;
        Node skewed = h.cluster.nodes.get(2);
        skewed.close();
        skewed.environment(Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME", "+10m",
                "FAKETIME_DONT_FAKE_MONOTONIC", "1"));
        h.cluster.restart(skewed);
        long offset = h.rest.clockOffsetSeconds(skewed);
        Progress.say("scenario 8: %s restarted with its clock %+d s off", skewed, offset);
        v.require(Math.abs(offset - SKEW_SECONDS) <= 5, "%s's clock is %+d s off, not +%d s", skewed, offset, SKEW_SECONDS);
        try (Receiver receiver = Receiver.start()) {
            h.rest.webhookTrigger(skewed, app, receiver.url(), 10);
            // 1. due times: each row due 15 s from now (this machine's and the database's clock)
            Map<UUID, Instant> dueAt = new HashMap<>();
            for (int i = 0; i < 150; i++) {
                Node node = h.cluster.nodes.get(i % 3);
                Instant due = Instant.now().plusSeconds(15).truncatedTo(ChronoUnit.MILLIS);
                List<UUID> ids = h.rest.publish(node, app, "kv", "{\"due\":" + i + "}", due);
                if (ids != null) {
                    ids.forEach(id -> dueAt.put(id, due));
                }
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (dueAt.keySet().stream().anyMatch(id -> receiver.hit(id) == null) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            long early = dueAt.entrySet().stream().filter(e -> receiver.hit(e.getKey()) != null
                    && receiver.hit(e.getKey()).firstEpochMillis < e.getValue().toEpochMilli()).count();
            long late = dueAt.entrySet().stream().filter(e -> receiver.hit(e.getKey()) != null)
                    .mapToLong(e -> receiver.hit(e.getKey()).firstEpochMillis - e.getValue().toEpochMilli()).max().orElse(-1);
            v.figure("%d rows due in 15 s: %d delivered before their due time, the latest %d ms after it", dueAt.size(), early, late);
            v.require(dueAt.size() == 150, "only %d of 150 scheduled rows acknowledged", dueAt.size());
            v.require(early == 0, "%d row(s) delivered before their due time", early);

            // 2. leases under load, the receiver answering in 1 s (rows stay in flight on every node)
            receiver.delay(1_000);
            Ledger ledger = new Ledger();
            Map<Node, double[]> before = h.counters();
            long wrongLeases = 0;
            long sampled = 0;
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
                long end = System.nanoTime() + Duration.ofSeconds(s.loadSeconds()).toNanos();
                while (System.nanoTime() < end) {
                    long[] lease = leases(h, skewed, s.leaseMillis());
                    sampled += lease[0];
                    wrongLeases += lease[1];
                    Thread.sleep(500);
                }
            }
            long ended = System.nanoTime();
            Map<UUID, Receiver> receivers = Map.of(app, receiver);
            h.compare(ledger, receivers, ended, Duration.ofMinutes(3), v);
            h.countersSince(before, v);
            v.figure("%,d leases of %s sampled while in flight, %d not exactly %d ms on the database clock; "
                    + "webhook-timestamp up to %d s off this machine's clock (receivers that check it with the usual "
                    + "5-minute tolerance refuse such a node's deliveries)", sampled, skewed, wrongLeases, s.leaseMillis(),
                    receiver.maxTimestampSkewSeconds());
            v.require(sampled > 0, "no lease of %s was seen in flight", skewed);
            v.require(wrongLeases == 0, "%d lease(s) of %s not measured on the database clock", wrongLeases, skewed);
            v.require(v.leaseRecoveries == 0, "%d lease(s) recovered although no node stopped", v.leaseRecoveries);
            v.require(v.fenced == 0, "%d completion(s) fenced although no lease ran out", v.fenced);
            v.require(v.duplicates.isEmpty(), "%d row(s) delivered twice", v.duplicates.size());
        }
    }

    /** {in flight on the node, of which the lease is not claimed_at + lease, or claimed_at is not in the past}. */
    private static long[] leases(Harness h, Node node, long leaseMillis) throws Exception {
        try (Connection con = h.db.connect(); PreparedStatement ps = con.prepareStatement("""
                SELECT count(*), count(*) FILTER (WHERE lease_expires_at - claimed_at <> ? * interval '1 millisecond'
                                                     OR claimed_at > now())
                FROM outbox WHERE claimed_by = ?""")) {
            ps.setLong(1, leaseMillis);
            ps.setString(2, node.name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }
}
