package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Part "notify": what the cross-node wake-up costs the producers. A commit that enqueued sends a PostgreSQL
 * {@code NOTIFY}, and PostgreSQL serializes the commits of transactions that notified behind one database-wide
 * lock; so the single-row paths (REST publish, one event per request; the Java API, one event per JTA
 * transaction) are measured with {@code outbox.dispatch.notify} on and off, beside the INSERT floor of the same
 * moment, in alternating order (round 1 on then off, round 2 off then on, …) so that a drift of the shared
 * machine's load does not read as a difference. Each switch redeploys the WAR; it is left on at the end.
 */
final class NotifyPhase {

    private static final String KEY = "outbox.dispatch.notify";

    private NotifyPhase() {
    }

    static List<Results.NotifyHalf> run(Bench bench) throws Exception {
        Settings s = bench.settings();
        Progress.say("[notify] enqueue with %s on and off, %d round(s); %d clients, %d s each after %d s warm-up",
                KEY, s.notifyRounds(), s.clients(), s.enqueueSeconds(), s.enqueueWarmupSeconds());
        List<Results.NotifyHalf> halves = new ArrayList<>();
        boolean current = true; // the server runs the product default
        for (int round = 1; round <= s.notifyRounds(); round++) {
            boolean first = round % 2 == 1;
            for (boolean notify : new boolean[] {first, !first}) {
                if (notify != current) {
                    Progress.say("  redeploying with %s=%s", KEY, notify);
                    bench.server().redeployWith(Map.of(KEY, String.valueOf(notify)));
                    current = notify;
                }
                halves.add(half(bench, round, notify));
            }
        }
        if (!current) {
            bench.server().redeployWith(Map.of(KEY, "true"));
        }
        return halves;
    }

    private static Results.NotifyHalf half(Bench bench, int round, boolean notify) throws Exception {
        OutboxTables t = bench.tables();
        bench.pause();
        t.truncate("outbox");
        Results.Throughput rest = Wrk.installed() ? EnqueuePhase.restWithWrk(bench) : EnqueuePhase.rest(bench);
        t.truncate("outbox");
        Results.Throughput javaApi = EnqueuePhase.javaApi(bench, "Java API (Outbox.publish, 1 row/tx)", 1);
        t.truncate("outbox");
        Results.Throughput floor = EnqueuePhase.floor(bench);
        t.truncate("outbox");
        Progress.say(
                "  round %d, notify %-3s: REST %,.0f requests/s (%.2f of the floor), Java API %,.0f rows/s (%.2f), floor %,.0f tx/s",
                round, notify ? "on" : "off", rest.perSecond(), rest.perSecond() / floor.perSecond(),
                javaApi.perSecond(),
                javaApi.perSecond() / floor.perSecond(), floor.perSecond());
        return new Results.NotifyHalf(round, notify, rest, javaApi, floor);
    }
}
