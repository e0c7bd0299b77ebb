package dev.triggeroutbox.faults;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * Scenario 7: the WAR redeployed on one node through the management API while load runs (requests to that
 * node fail meanwhile and are not acknowledged; its rows in flight come back after their lease): 0 lost.
 */
final class Redeploy extends Scenario {

    Redeploy() {
        super(7, "the WAR redeployed on one node under load");
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
            long took;
            Node node = h.cluster.nodes.get(2);
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
                sleepSeconds(s.loadSeconds() / 3.0);
                Progress.say("scenario 7: redeploying the WAR on %s", node);
                long start = System.nanoTime();
                node.redeploy();
                took = (System.nanoTime() - start) / 1_000_000;
                sleepSeconds(s.loadSeconds() * 2 / 3.0);
            }
            // the load runs on after the redeploy: the drain is measured from its end
            h.compare(ledger, Map.of(app, receiver), System.nanoTime(), Duration.ofMinutes(3), v);
            h.countersSince(before, v);
            v.figure("redeploy took %.1f s", took / 1000.0);
        }
    }
}
