package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** Scenario 1: no faults, N events over three nodes as fast as eight producers go: 0 lost, 0 duplicates. */
final class NoFaults extends Scenario {

    NoFaults() {
        super(1, "no faults, events over three nodes");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID app = app(number, 1);
        try (Receiver receiver = Receiver.start()) {
            h.rest.webhookTrigger(h.cluster.anyUp(), app, receiver.url(), 10);
            Ledger ledger = new Ledger();
            Map<Node, double[]> before = h.counters();
            long start = System.nanoTime();
            Progress.say("scenario 1: %,d events through %d nodes", h.settings.steadyEvents(), h.cluster.nodes.size());
            Load load = new Load(h.cluster, h.rest, ledger, app, 0, h.settings.steadyEvents(), 8).start();
            load.awaitDone(30, TimeUnit.MINUTES);
            long sent = System.nanoTime();
            h.compare(ledger, Map.of(app, receiver), sent, Duration.ofMinutes(3), v);
            h.countersSince(before, v);
            double seconds = (sent - start) / 1e9;
            v.figure("enqueue %.0f events/s acknowledged (%.1f s); delivered within %.1f s of the last acknowledgement",
                    ledger.size() / seconds, seconds, v.drainMillis == null ? Double.NaN : v.drainMillis / 1000.0);
            v.require(v.duplicates.isEmpty(), "%d row(s) delivered more than once without any fault",
                    v.duplicates.size());
            v.require(v.fenced == 0, "%d completion(s) fenced without any fault", v.fenced);
        }
    }
}
