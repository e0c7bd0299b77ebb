package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 * Scenario 8: one node's clock 10 minutes ahead (a small shim, {@code clockskew.c}, preloaded into its JVM adds
 * 600 s to every wall-clock reading and leaves the monotonic clocks alone; checked by the {@code Date} header the
 * node answers with). Rows due 15 s from now,
 * published through every node, are not delivered before their due time; under load with slow answers no
 * lease is taken early (no lease recovered, nothing fenced, nothing delivered twice), and every lease the
 * skewed node takes is exactly the configured length on the database clock. Then, under load, the running
 * node's clock is stepped back by the 10 minutes (NTP correcting a clock that ran fast), to a receiver that
 * refuses {@code webhook-timestamp}s more than 5 minutes off as Standard Webhooks verifiers do: its heartbeat
 * keeps beating, its timestamps stay current and nothing is dead-lettered.
 */
final class ClockSkew extends Scenario {

    static final long SKEW_SECONDS = 600;

    ClockSkew() {
        super(8, "one node's clock 10 minutes off");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        Path shim = shim(h.settings.target());
        if (shim == null) {
            v.skipped = true;
            v.figure("needs gcc to build the clock shim (clockskew.c)");
            return;
        }
        Node skewed = h.cluster.nodes.get(2);
        skewed.close();
        Path skewFile = h.settings.target().resolve("clock-skew-seconds");
        Files.writeString(skewFile, Long.toString(SKEW_SECONDS));
        skewed.environment(Map.of("LD_PRELOAD", shim.toString(), "CLOCK_SKEW_FILE", skewFile.toString()));
        try {
            h.cluster.restart(skewed);
            check(h, v, skewed, skewFile);
        } finally {
            // the node gets the right time back, for whatever runs after this scenario
            skewed.close();
            skewed.environment(Map.of());
            h.cluster.restart(skewed);
        }
    }

    private void check(Harness h, Verdict v, Node skewed, Path skewFile) throws Exception {
        UUID app = app(number, 1);
        Settings s = h.settings;
        long offset = h.rest.clockOffsetSeconds(skewed);
        Progress.say("scenario 8: %s restarted with its clock %+d s off", skewed, offset);
        v.require(Math.abs(offset - SKEW_SECONDS) <= 5, "%s's clock is %+d s off, not +%d s", skewed, offset,
                SKEW_SECONDS);
        UUID steppedApp = app(number, 2);
        try (Receiver receiver = Receiver.start(); Receiver steppedReceiver = Receiver.start()) {
            h.rest.webhookTrigger(skewed, app, receiver.url(), 10);
            h.rest.webhookTrigger(skewed, steppedApp, steppedReceiver.url(), 10);
            // 1. due times: each row due 15 s from now (this machine's and the database's clock)
            Ledger ledger = new Ledger();
            Map<UUID, Instant> dueAt = new HashMap<>();
            for (int i = 0; i < 150; i++) {
                Node node = h.cluster.nodes.get(i % 3);
                Instant due = Instant.now().plusSeconds(15).truncatedTo(ChronoUnit.MILLIS);
                long sent = System.nanoTime();
                List<UUID> ids = h.rest.publish(node, app, "kv", "{\"due\":" + i + "}", due);
                if (ids != null) {
                    ids.forEach(id -> {
                        dueAt.put(id, due);
                        ledger.acknowledged(id, app, sent);
                    });
                }
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (dueAt.keySet().stream().anyMatch(id -> receiver.hit(id) == null) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            long early = dueAt.entrySet().stream().filter(e -> receiver.hit(e.getKey()) != null
                    && receiver.hit(e.getKey()).firstEpochMillis < e.getValue().toEpochMilli()).count();
            long late = dueAt.entrySet().stream().filter(e -> receiver.hit(e.getKey()) != null)
                    .mapToLong(e -> receiver.hit(e.getKey()).firstEpochMillis - e.getValue().toEpochMilli()).max()
                    .orElse(-1);
            v.figure("%d rows due in 15 s: %d delivered before their due time, the latest %d ms after it", dueAt.size(),
                    early, late);
            v.require(dueAt.size() == 150, "only %d of 150 scheduled rows acknowledged", dueAt.size());
            v.require(early == 0, "%d row(s) delivered before their due time", early);

            // 2. leases under load, the receiver answering in 1 s (rows stay in flight on every node)
            receiver.delay(1_000);
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
            // 3. the running node's clock stepped back by the 10 minutes, under load
            steppedReceiver.refuseTimestampsOffBy(300);
            long heartbeatAge = 0;
            long offsetAfter;
            try (Load load = new Load(h.cluster, h.rest, ledger, steppedApp, s.rate(), 0, 8).start()) {
                sleepSeconds(s.loadSeconds() / 4.0);
                Files.writeString(skewFile, "0");
                long step = System.nanoTime();
                Progress.say("scenario 8: %s's clock stepped back by %d s", skewed, SKEW_SECONDS);
                long end = step + Duration.ofSeconds(s.loadSeconds()).toNanos();
                while (System.nanoTime() < end) {
                    heartbeatAge = Math.max(heartbeatAge, heartbeatAgeMillis(h, skewed));
                    Thread.sleep(500);
                }
                offsetAfter = h.rest.clockOffsetSeconds(skewed);
            }
            long ended = System.nanoTime();
            Map<UUID, Receiver> receivers = Map.of(app, receiver, steppedApp, steppedReceiver);
            h.compare(ledger, receivers, ended, Duration.ofMinutes(3), v);
            v.figure("after the step back: %s's clock %+d s off; its heartbeat at most %d ms old (database clock); "
                    + "webhook-timestamp up to %d s off, %d refused as stale", skewed, offsetAfter, heartbeatAge,
                    steppedReceiver.maxTimestampSkewSeconds(), steppedReceiver.refusedTimestamps());
            v.require(Math.abs(offsetAfter) <= 5, "%s's clock is %+d s off after the step, not 0", skewed, offsetAfter);
            v.require(heartbeatAge <= 5_000, "%s's heartbeat stopped for %d ms after its clock was stepped back",
                    skewed,
                    heartbeatAge);
            v.require(steppedReceiver.maxTimestampSkewSeconds() <= 5, "after the step a webhook-timestamp was %d s off",
                    steppedReceiver.maxTimestampSkewSeconds());
            v.require(steppedReceiver.refusedTimestamps() == 0, "%d request(s) refused for a stale webhook-timestamp",
                    steppedReceiver.refusedTimestamps());
            h.countersSince(before, v);
            v.figure("%,d leases of %s sampled while in flight, %d not exactly %d ms on the database clock; "
                    + "webhook-timestamp up to %d s off this machine's clock", sampled, skewed, wrongLeases,
                    s.leaseMillis(),
                    receiver.maxTimestampSkewSeconds());
            v.require(sampled > 0, "no lease of %s was seen in flight", skewed);
            v.require(wrongLeases == 0, "%d lease(s) of %s not measured on the database clock", wrongLeases, skewed);
            v.require(v.leaseRecoveries == 0, "%d lease(s) recovered although no node stopped", v.leaseRecoveries);
            v.require(v.fenced == 0, "%d completion(s) fenced although no lease ran out", v.fenced);
            v.require(v.duplicates.isEmpty(), "%d row(s) delivered twice", v.duplicates.size());
            // receivers refuse a webhook-timestamp more than a few minutes off theirs (Standard Webhooks: 5)
            v.require(receiver.maxTimestampSkewSeconds() <= 5,
                    "a webhook-timestamp was %d s off: signed with the node's "
                            + "clock, not the database's",
                    receiver.maxTimestampSkewSeconds());
        }
    }

    /** The clock shim built from its source with the machine's gcc, or null when there is no gcc. */
    private static Path shim(Path target) throws IOException, InterruptedException {
        Path source = target.resolve("clockskew.c");
        Path library = target.resolve("libclockskew.so");
        try (InputStream in = ClockSkew.class.getResourceAsStream("/clockskew.c")) {
            Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
        }
        try {
            Node.run(List.of("gcc", "-shared", "-fPIC", "-O2", "-o", library.toString(), source.toString(), "-ldl"),
                    Duration.ofMinutes(1));
        } catch (IOException e) {
            return null; // no gcc on this machine
        }
        return library;
    }

    /** How long ago the node's heartbeat last wrote its line, on the database's clock. */
    private static long heartbeatAgeMillis(Harness h, Node node) throws Exception {
        try (Connection con = h.db.connect();
                PreparedStatement ps = con.prepareStatement(
                        "SELECT (extract(epoch FROM clock_timestamp() - last_tick_at) * 1000)::bigint FROM dispatcher_nodes WHERE node = ?")) {
            ps.setString(1, node.name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : Long.MAX_VALUE;
            }
        }
    }

    /** {in flight on the node, of which the lease is not claimed_at + lease, or claimed_at is not in the past}. */
    private static long[] leases(Harness h, Node node, long leaseMillis) throws Exception {
        try (Connection con = h.db.connect(); PreparedStatement ps = con.prepareStatement("""
                SELECT count(*), count(*) FILTER (WHERE lease_expires_at - claimed_at <> ? * interval '1 millisecond'
                                                     OR claimed_at > clock_timestamp())
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
