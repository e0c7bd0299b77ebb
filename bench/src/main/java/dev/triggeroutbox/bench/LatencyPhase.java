package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Part 3: commit → delivery start at fixed offered loads, with the on-commit wake-up on, then off.
 *
 * <p>How it is measured: the load is generated inside the server by the benchmark's endpoint, each event
 * its own JTA transaction through the Java API, on a fixed schedule. A transaction synchronization
 * notes {@code System.nanoTime()} when the transaction has committed, and the no-op handler notes it
 * when the event's delivery starts; both in the server's JVM, so no clocks are compared and the time
 * the producer spends before its commit (HTTP, JSON, the insert) is not counted. Switching the wake-up
 * off sets {@code outbox.dispatch.wake-on-commit=false} and {@code outbox.dispatch.notify=false} on the server and
 * redeploys the WAR.
 */
final class LatencyPhase {

    private LatencyPhase() {
    }

    static Results.Latency run(Bench bench) throws Exception {
        Settings s = bench.settings();
        Progress.say(
                "[3/5] latency: commit -> delivery start at %s events/s, %d s each, wake-up on then off (poll %d ms)",
                s.loads(), s.loadSeconds(), s.pollMillis());
        OutboxTables t = bench.tables();
        t.truncate("outbox");
        t.paused(false);
        bench.settle();
        List<Results.LoadPoint> points = new ArrayList<>();
        for (boolean wake : new boolean[] {true, false}) {
            if (!wake) {
                Progress.say(
                        "  redeploying with outbox.dispatch.wake-on-commit=false and outbox.dispatch.notify=false");
                // both: with the NOTIFY on, this node's own listener would wake it at each commit
                bench.server().redeployWith(
                        Map.of("outbox.dispatch.wake-on-commit", "false", "outbox.dispatch.notify", "false"));
                bench.settle();
            }
            // warm-up, not reported: the producer and delivery paths of this deployment are compiled
            one(bench, wake, Math.min(200, s.loads().get(0)), s.latencyWarmupSeconds());
            for (int load : s.loads()) {
                Results.LoadPoint p = one(bench, wake, load, s.loadSeconds());
                points.add(p);
                Progress.say(
                        "  wake-up %-3s %,6d/s offered, %,7.0f/s achieved: p50 %7.2f  p95 %7.2f  p99 %7.2f  max %8.2f ms%s",
                        wake ? "on" : "off", load, p.achieved(), p.p50(), p.p95(), p.p99(), p.max(),
                        p.negative() > 0
                                ? "  (" + p.negative() + " started before the probe saw the commit: counted as 0)"
                                : "");
            }
        }
        long left = t.count("outbox");
        if (left != 0) {
            throw new IllegalStateException(
                    "latency: " + left + " rows still in the outbox after all were seen delivered");
        }
        return new Results.Latency(s.pollMillis(), points);
    }

    private static Results.LoadPoint one(Bench bench, boolean wake, int rate, int seconds) throws Exception {
        Settings s = bench.settings();
        String json = bench.api().latencyRun(bench.tables().app(), rate, seconds, s.latencyProducers());
        int sent = (int) Api.number(json, "sent");
        int committed = (int) Api.number(json, "committed");
        int delivered = (int) Api.number(json, "delivered");
        if (committed != sent || delivered != sent) {
            throw new IllegalStateException("latency run at " + rate + "/s: " + sent + " sent, " + committed
                    + " committed, " + delivered + " delivered within a minute: " + json);
        }
        // the finishing transaction of the last batch may still be running: wait for it before the next load
        Bench.await("latency rows finished", 1, () -> bench.tables().count("outbox") == 0 ? 1 : 0, 30);
        return new Results.LoadPoint(wake, rate, sent, Api.number(json, "sendSeconds"), Api.number(json, "worstLagMs"),
                Api.number(json, "p50"), Api.number(json, "p95"), Api.number(json, "p99"), Api.number(json, "max"),
                (int) Api.number(json, "negative"));
    }
}
