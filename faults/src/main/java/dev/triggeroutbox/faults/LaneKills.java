package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Scenario 11: ordered delivery to {@value #KEYS} ordering keys while a random node is killed ({@code kill -9}) every
 * 5 s and restarted. Each key is written by one producer thread, one event after the other, so its enqueue order is
 * known. Per key the receiver must see every row, in that order, one at a time: a row's last delivery came before
 * the next row's first. Duplicates only among rows in flight on a killed node (the head of its lane, delivered
 * again after its lease).
 */
final class LaneKills extends Scenario {

    static final int KEYS = 50;
    private static final int PRODUCERS = 5;

    LaneKills() {
        super(11, "ordered lanes (50 keys) while kill -9 hits a node every 5 s");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID app = app(number, 1);
        Settings s = h.settings;
        try (Receiver receiver = Receiver.start()) {
            h.rest.webhookTrigger(h.cluster.anyUp(), app, receiver.url(), 10);
            Ledger ledger = new Ledger();
            // per key, its rows in the order they were written
            Map<String, List<UUID>> lanes = new ConcurrentHashMap<>();
            Set<UUID> inFlightOnKilled = new HashSet<>();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                producers.execute(() -> produce(h, app, ledger, lanes, producer, s.rate(), stop));
            }
            int kills = 0;
            long end = System.nanoTime() + Duration.ofSeconds(s.killSeconds()).toNanos();
            while (System.nanoTime() < end) {
                sleepSeconds(Settings.KILL_EVERY_SECONDS);
                if (h.cluster.up().size() < 2) {
                    continue; // the last node up stays
                }
                Node node = h.cluster.randomUp();
                node.kill();
                kills++;
                Set<UUID> held = h.claimedBy(node);
                inFlightOnKilled.addAll(held);
                Progress.say("scenario 11: killed %s (%d rows in flight on it); restarting it", node, held.size());
                h.cluster.restartLater(node);
            }
            stop.set(true);
            producers.shutdown();
            producers.awaitTermination(60, TimeUnit.SECONDS);
            long loadEnded = System.nanoTime();
            h.compare(ledger, Map.of(app, receiver), loadEnded, Duration.ofMinutes(3), v);

            int outOfOrder = 0;
            int overlapping = 0;
            List<String> examples = new ArrayList<>();
            for (Map.Entry<String, List<UUID>> lane : lanes.entrySet()) {
                List<UUID> rows = lane.getValue();
                for (int i = 1; i < rows.size(); i++) {
                    Receiver.Hit before = receiver.hit(rows.get(i - 1));
                    Receiver.Hit after = receiver.hit(rows.get(i));
                    if (before == null || after == null) {
                        continue; // a lost row: the ledger comparison reports it
                    }
                    if (after.firstNanos < before.firstNanos) {
                        outOfOrder++;
                        examples.add(lane.getKey() + "#" + i);
                    } else if (after.firstNanos < before.lastNanos) {
                        overlapping++;
                        examples.add(lane.getKey() + "#" + i + " (its predecessor came again after it)");
                    }
                }
            }
            int rows = lanes.values().stream().mapToInt(List::size).sum();
            v.figure("%d rows in %d lanes, %d kills; %d rows were in flight on a node when it was killed", rows,
                    lanes.size(),
                    kills, inFlightOnKilled.size());
            v.require(outOfOrder == 0, "%d row(s) arrived before the row written before them in their lane: %s",
                    outOfOrder,
                    examples.subList(0, Math.min(5, examples.size())));
            v.require(overlapping == 0,
                    "%d row(s) arrived while the row before them in their lane was delivered again: %s",
                    overlapping, examples.subList(0, Math.min(5, examples.size())));
            Set<UUID> unexplained = new HashSet<>(v.duplicates.keySet());
            unexplained.removeAll(inFlightOnKilled);
            v.require(unexplained.isEmpty(), "%d duplicate(s) of rows that were not in flight on a killed node: %s",
                    unexplained.size(), unexplained);
            h.cluster.awaitAllUp(Cluster.START_TIMEOUT);
        }
    }

    /** Producer {@code p} writes the keys {@code p, p + PRODUCERS, …} in turn, each event acknowledged before the next. */
    private static void produce(Harness h, UUID app, Ledger ledger, Map<String, List<UUID>> lanes, int p, int rate,
            AtomicBoolean stop) {
        long gapNanos = rate > 0 ? 1_000_000_000L * PRODUCERS / rate : 0;
        long next = System.nanoTime();
        for (long n = 0; !stop.get(); n++) {
            String key = "key-" + (p + PRODUCERS * (n % (KEYS / PRODUCERS)));
            List<Node> up = h.cluster.up();
            if (up.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                n--;
                continue;
            }
            long sent = System.nanoTime();
            List<UUID> ids = h.rest.publish(up.get((int) (n % up.size())), app, "kv", "{\"seq\":" + n + "}", null, key);
            if (ids == null) {
                // not acknowledged (its node died): it may or may not be written, so its place in the lane is unknown;
                // the lane's order is checked among acknowledged rows, which this one cannot be between
                ledger.unacknowledged();
            } else {
                ids.forEach(id -> {
                    ledger.acknowledged(id, app, sent);
                    lanes.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(id);
                });
            }
            next += gapNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }
}
