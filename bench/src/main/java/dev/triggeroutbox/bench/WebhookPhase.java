package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.util.List;
import java.util.UUID;

/**
 * Part "webhook drain": N rows already due for a webhook trigger whose URL is the nginx receiver on
 * 127.0.0.1 (allow-listed on the bench server), delivered by the WAR with the same settings as the
 * no-op drain; beside it, in the same run, the no-op drain (a) and the HTTP floor: wrk POSTing the
 * same signed bodies with as many connections as the server kept open to the receiver.
 * <p>
 * Both drains are warmed up before either is measured, and then measured in turn ({@code
 * bench.webhook-rounds}); of the rounds after the first, the one with the median ratio is the figure. The server's JIT compiles the webhook path for tens
 * of seconds after the first webhook rows (the first round here costs the server twice the CPU per row of the
 * second), so a webhook drain measured right after its own warm-up, beside a no-op drain whose code was
 * compiled long before, compared the compiler's work more than the two paths.
 */
final class WebhookPhase {

    /** An app of its own, so that events the other parts publish for the bench app never reach the receiver. */
    static final UUID APP = UUID.fromString("be4c0000-0000-4000-8000-0000000000eb");

    private WebhookPhase() {
    }

    /**
     * A drain's figure, the server CPU time it took, and how it was spent: CPU per row of each process, rows per
     * claim statement and per finishing transaction.
     */
    private record Measured(Results.Throughput throughput, long cpuNanos, String parts) {
    }

    static Results.Webhook run(Bench bench) throws Exception {
        Settings s = bench.settings();
        Progress.say(
                "[webhook] drain: %,d due rows to nginx (%d worker(s)) through the WAR, %d round(s) beside the no-op "
                        + "drain; warm-up %,d rows of each first",
                s.webhookRows(), s.nginxWorkers(), s.webhookRounds(), s.warmupRows());
        try (Nginx nginx = new Nginx(s.target(), s.nginxWorkers())) {
            nginx.start();
            UUID trigger = bench.api().createWebhookTrigger(APP, nginx.url("/hook"));
            OutboxTables hooks = new OutboxTables(bench.db(), APP, trigger);
            String hookLabel = "Trigger Outbox webhook drain (WildFly → nginx)";
            String noopLabel = "Trigger Outbox no-op drain (WildFly)";
            DrainPhase.dispatcher(bench, hooks, s.warmupRows(), SignedPosts.PAD, hookLabel);
            DrainPhase.dispatcher(bench, bench.tables(), s.warmupRows(), 0, noopLabel);
            List<Measured[]> rounds = new java.util.ArrayList<>();
            for (int round = 1; round <= s.webhookRounds(); round++) {
                Measured webhook = measured(bench, hooks, s.webhookRows(), SignedPosts.PAD, hookLabel);
                Measured noop = measured(bench, bench.tables(), s.webhookRows(), 0, noopLabel);
                rounds.add(new Measured[] {webhook, noop});
                Progress.say(
                        "  round %d: webhook %,.0f rows/s (server CPU %.1f µs/row), no-op %,.0f rows/s (%.1f µs/row): %.2f",
                        round, webhook.throughput().perSecond(), micros(webhook), noop.throughput().perSecond(),
                        micros(noop),
                        ratio(rounds.get(rounds.size() - 1)));
                Progress.say("    webhook: %s%n    no-op:   %s", webhook.parts(), noop.parts());
            }
            // the first round is the JIT's (see above); of the others, the one whose ratio is the median: on two shared
            // cores one round's pair can differ from the next by a tenth
            List<Measured[]> settled = rounds.size() > 1 ? rounds.subList(1, rounds.size()) : rounds;
            List<Measured[]> byRatio = new java.util.ArrayList<>(settled);
            byRatio.sort(java.util.Comparator.comparingDouble(WebhookPhase::ratio));
            Measured webhook = byRatio.get((byRatio.size() - 1) / 2)[0];
            Measured noop = byRatio.get((byRatio.size() - 1) / 2)[1];
            long connections = nginx.active();
            bench.api().deleteTrigger(APP, trigger);

            SignedPosts.Post post = SignedPosts.make(1).get(0);
            int wrkConnections = (int) Math.max(1, connections);
            int seconds = (int) Math.min(30, Math.max(3, Math.ceil(webhook.throughput().seconds())));
            Wrk.run(s.target(), nginx.url("/hook"), post, wrkConnections, Math.min(seconds, s.clientWarmupSeconds()));
            Results.Throughput floor = Wrk.run(s.target(), nginx.url("/hook"), post, wrkConnections, seconds);
            Results.Webhook w = new Results.Webhook(s.webhookRows(), s.webhookRounds(), webhook.throughput(),
                    noop.throughput(),
                    micros(webhook), micros(noop), connections, floor);
            Progress.say("  HTTP floor (wrk, %d connections): %,.0f requests/s; webhook/no-op = %.2f (target >= 0.7), "
                    + "webhook/floor = %.2f", wrkConnections, floor.perSecond(), w.toNoop(), w.toFloor());
            return w;
        }
    }

    private static Measured measured(Bench bench, OutboxTables tables, int rows, int pad, String label)
            throws Exception {
        CpuMeter.Sample[] cpu = new CpuMeter.Sample[2];
        long claims = bench.api().metric("outbox_claims_total");
        long windows = bench.api().metric("outbox_finishing_windows_total");
        Statements.reset(bench.db());
        Results.Throughput t = DrainPhase.dispatcher(bench, tables, rows, pad, label, cpu);
        List<String> statements = Statements.top(bench.db(), rows, 6);
        claims = bench.api().metric("outbox_claims_total") - claims;
        windows = bench.api().metric("outbox_finishing_windows_total") - windows;
        String parts = String.format(java.util.Locale.ROOT,
                "%s; %.0f rows per claim (%,d claims), %.0f per finishing window",
                CpuMeter.describe(cpu[1].microsPerRow(cpu[0], rows)), (double) rows / Math.max(1, claims), claims,
                (double) rows / Math.max(1, windows));
        for (String line : statements) {
            parts += "\n      " + line;
        }
        return new Measured(t, cpu[1].nanos().get("server") - cpu[0].nanos().get("server"), parts);
    }

    private static double ratio(Measured[] pair) {
        return pair[0].throughput().perSecond() / pair[1].throughput().perSecond();
    }

    private static double micros(Measured m) {
        return m.cpuNanos() / 1e3 / m.throughput().count();
    }
}
