package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Scenario 2: {@code kill -9} of a random node every 5 s while load runs, each restarted at once (a beat
 * passes without a kill while only one node is up: someone must be left to pick up the rows): 0 lost;
 * duplicates only among rows in flight on a killed node (what the database showed it holding right after the
 * kill); each row a killed node held delivered within lease + poll interval after its kill; time to drain
 * counted from the end of the load.
 */
final class KillNodes extends Scenario {

    KillNodes() {
        super(2, "kill -9 a random node every 5 s, restarting it");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID app = app(number, 1);
        Settings s = h.settings;
        try (Receiver receiver = Receiver.start()) {
            h.rest.webhookTrigger(h.cluster.anyUp(), app, receiver.url(), 10);
            Ledger ledger = new Ledger();
            Map<Node, double[]> before = h.counters();
            Set<UUID> inFlightOnKilled = new HashSet<>();
            Map<UUID, Long> killedAt = new HashMap<>();
            int kills = 0;
            int skipped = 0;
            long loadEnded;
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
                long end = System.nanoTime() + Duration.ofSeconds(s.killSeconds()).toNanos();
                while (System.nanoTime() < end) {
                    sleepSeconds(Settings.KILL_EVERY_SECONDS);
                    if (h.cluster.up().size() < 2) {
                        skipped++; // the last node up stays: the rows of the killed ones need a node to come back to
                        continue;
                    }
                    Node node = h.cluster.randomUp();
                    node.kill();
                    long killed = System.nanoTime();
                    kills++;
                    Set<UUID> held = h.claimedBy(node); // its connections died with it: nothing changes these now
                    held.forEach(id -> killedAt.put(id, killed));
                    inFlightOnKilled.addAll(held);
                    Progress.say("scenario 2: killed %s (%d rows in flight on it); restarting it", node, held.size());
                    h.cluster.restartLater(node);
                }
                loadEnded = System.nanoTime();
            }
            h.compare(ledger, Map.of(app, receiver), loadEnded, Duration.ofMinutes(3), v);
            h.countersSince(before, v); // a killed node's counters die with it: these are the survivors' and the restarted ones'
            Set<UUID> unexplained = new HashSet<>(v.duplicates.keySet());
            unexplained.removeAll(inFlightOnKilled);
            long bound = s.leaseMillis() + s.pollMillis();
            // each row a killed node held: its last delivery (the one after the lease) came how long after the kill?
            long slowest = 0;
            for (Map.Entry<UUID, Long> e : killedAt.entrySet()) {
                Receiver.Hit hit = receiver.hit(e.getKey());
                if (hit != null) {
                    slowest = Math.max(slowest, (hit.lastNanos - e.getValue()) / 1_000_000);
                }
            }
            v.figure("rows held by a killed node delivered at most %d ms after its kill (bound: lease + poll = %d ms)",
                    slowest, bound);
            v.require(slowest <= bound,
                    "a row held by a killed node was delivered %d ms after the kill, more than lease + poll "
                            + "interval (%d ms)",
                    slowest, bound);
            v.figure(
                    "%d kills (%d beats without a kill: only one node was up); %d rows were in flight on a node when it was "
                            + "killed",
                    kills, skipped, inFlightOnKilled.size());
            v.require(unexplained.isEmpty(), "%d duplicate(s) of rows that were not in flight on a killed node: %s",
                    unexplained.size(), unexplained);
            h.cluster.awaitAllUp(Cluster.START_TIMEOUT);
        }
    }
}
