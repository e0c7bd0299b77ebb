package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Scenario 6: app A's receiver is down (its port closed) for a while with a growing backlog, then back: the
 * backlog drains; app B's end-to-end latency (publish sent → webhook received) during the outage has a p99
 * within +20% of its p99 before the outage.
 */
final class ReceiverOutage extends Scenario {

    ReceiverOutage() {
        super(6, "one app's receiver down with a growing backlog, then back");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID a = app(number, 1);
        UUID b = app(number, 2);
        Settings s = h.settings;
        try (Receiver ra = Receiver.start(); Receiver rb = Receiver.start()) {
            Node admin = h.cluster.anyUp();
            h.rest.webhookTrigger(admin, a, ra.url(), 1000); // retried through the whole outage, never dead
            h.rest.webhookTrigger(admin, b, rb.url(), 10);
            Ledger ledger = new Ledger();
            long baselineFrom;
            long outageFrom;
            long outageTo;
            long backlog;
            long attempts;
            long notSent;
            try (Load la = new Load(h.cluster, h.rest, ledger, a, s.rate() / 2, 0, 4).start();
                    Load lb = new Load(h.cluster, h.rest, ledger, b, s.rate() / 2, 0, 4).start()) {
                // warm-up as long as the baseline: a node fresh from boot is still compiling its hot paths
                sleepSeconds(s.baselineSeconds());
                baselineFrom = System.nanoTime();
                sleepSeconds(s.baselineSeconds());
                ra.down();
                outageFrom = System.nanoTime();
                Progress.say("scenario 6: receiver of app A down for %d s", s.receiverDownSeconds());
                sleepSeconds(s.receiverDownSeconds());
                backlog = h.outboxRows(List.of(a));
                attempts = h.count("SELECT coalesce(sum(attempt_count), 0) FROM outbox WHERE app_id = ANY (?)",
                        List.of(a));
                notSent = h.count("SELECT count(*) FROM outbox WHERE app_id = ANY (?) AND last_error LIKE 'not sent:%'",
                        List.of(a));
                ra.up();
                outageTo = System.nanoTime();
                Progress.say("scenario 6: receiver of app A back; %,d rows waiting for it", backlog);
                sleepSeconds(5);
            }
            h.compare(ledger, Map.of(a, ra, b, rb), outageTo, Duration.ofMinutes(3), v);
            double normal = Latencies.of(ledger, rb, b, baselineFrom, outageFrom).millis(0.99);
            double during = Latencies.of(ledger, rb, b, outageFrom, outageTo).millis(0.99);
            v.figure("app B p99 latency %.1f ms before, %.1f ms during the outage (%+.0f%%); backlog of app A at the "
                    + "end of the outage %,d rows, claimed %,d times so far, %,d of them last refused by an open circuit "
                    + "(not sent)", normal, during, (during / normal - 1) * 100, backlog, attempts, notSent);
            v.requireTiming(during <= normal * 1.2,
                    "app B's p99 during the outage (%.1f ms) is more than +20%% of normal (%.1f ms)",
                    during, normal);
            v.require(backlog > 0, "no backlog built up while the receiver was down");
        }
    }
}
