package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Scenarios 7 and 10: the WAR on one node stops while it holds deliveries to a slow receiver, under load, and
 * comes back. The stopping WAR finishes its deliveries in flight and gives back the rows it never started, so:
 * 0 lost, 0 duplicates, no row left under a claim it held when the stop began, no lease recovered.
 */
abstract class StopUnderLoad extends Scenario {

    private final long receiverDelayMillis;
    private final int nodeIndex;

    /** {@code nodeIndex}: which of the three nodes stops. */
    StopUnderLoad(int number, String title, long receiverDelayMillis, int nodeIndex) {
        super(number, title);
        this.receiverDelayMillis = receiverDelayMillis;
        this.nodeIndex = nodeIndex;
    }

    /** Stops the WAR on {@code node} and brings it back; adds what it measured to the verdict. */
    abstract void stopAndStart(Harness h, Node node, Verdict v) throws Exception;

    /** What the node said about its rows when its WAR stopped (the last such line of its console). */
    private static String drainLine(Node node) throws IOException {
        String marker = "dispatcher stopped: ";
        try (Stream<String> lines = Files.lines(node.console())) {
            return lines.filter(l -> l.contains(marker)).reduce((a, b) -> b)
                    .map(l -> l.substring(l.indexOf(marker) + marker.length())).orElse("(nothing)");
        }
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID app = app(number, 1);
        Settings s = h.settings;
        try (Receiver receiver = Receiver.start()) {
            receiver.delay(receiverDelayMillis);
            h.rest.webhookTrigger(h.cluster.anyUp(), app, receiver.url(), 10);
            Ledger ledger = new Ledger();
            Map<Node, double[]> before = h.counters();
            Node node = h.cluster.nodes.get(nodeIndex);
            Set<UUID> claims;
            Set<UUID> held;
            Set<UUID> left;
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
                sleepSeconds(s.loadSeconds() / 3.0);
                claims = h.ids("SELECT DISTINCT claim_token FROM outbox WHERE claimed_by = ?", node.name);
                held = h.ids("SELECT id FROM outbox WHERE claim_token = ANY (?)", claims);
                Progress.say("scenario %d: stopping the WAR on %s (%d rows in flight on it)", number, node,
                        held.size());
                stopAndStart(h, node, v);
                // rows still under a claim the node held before it stopped: left behind, waiting for their lease
                left = h.ids("SELECT id FROM outbox WHERE claim_token = ANY (?)", claims);
                sleepSeconds(s.loadSeconds() * 2 / 3.0);
            }
            // the load runs on after the stop: the drain is measured from its end
            h.compare(ledger, Map.of(app, receiver), System.nanoTime(), Duration.ofMinutes(3), v);
            h.countersSince(before, v);
            v.figure(
                    "%d rows in flight on %s when it began to stop (receiver answering after %d ms), %d left under their claim",
                    held.size(), node, receiverDelayMillis, left.size());
            v.figure("%s logged: %s", node, drainLine(node));
            v.require(!held.isEmpty(), "no row was in flight on %s when it began to stop: the scenario tested nothing",
                    node);
            v.require(left.isEmpty(), "%d row(s) left claimed by the stopped WAR (they wait for their lease)",
                    left.size());
            v.require(v.duplicates.isEmpty(), "%d row(s) delivered twice", v.duplicates.size());
            v.require(v.leaseRecoveries == 0, "%d lease(s) recovered: rows of the stopped WAR waited for their lease",
                    v.leaseRecoveries);
        }
    }
}
