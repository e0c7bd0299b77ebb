package dev.triggeroutbox.bench;

import java.util.UUID;

/**
 * Part "webhook drain": N rows already due for a webhook trigger whose URL is the nginx receiver on
 * 127.0.0.1 (allow-listed on the bench server), delivered by the WAR with the same settings as the
 * no-op drain; beside it, in the same run, the no-op drain (a) and the HTTP floor: wrk POSTing the
 * same signed bodies with as many connections as the server kept open to the receiver.
 */
final class WebhookPhase {

    /** An app of its own, so that events the other parts publish for the bench app never reach the receiver. */
    static final UUID APP = UUID.fromString("be4c0000-0000-4000-8000-0000000000eb");

    private WebhookPhase() {
    }

    static Results.Webhook run(Bench bench, Results.Drain drain) throws Exception {
        Settings s = bench.settings();
        Progress.say("[webhook] drain: %,d due rows to nginx (%d worker(s)) through the WAR; warm-up %,d rows first",
                s.webhookRows(), s.nginxWorkers(), s.warmupRows());
        try (Nginx nginx = new Nginx(s.target(), s.nginxWorkers())) {
            nginx.start();
            UUID trigger = bench.api().createWebhookTrigger(APP, nginx.url("/hook"));
            OutboxTables tables = new OutboxTables(bench.db(), APP, trigger);
            String label = "Trigger Outbox webhook drain (WildFly → nginx)";
            DrainPhase.dispatcher(bench, tables, s.warmupRows(), SignedPosts.PAD, label);
            Results.Throughput webhook = DrainPhase.dispatcher(bench, tables, s.webhookRows(), SignedPosts.PAD, label);
            long connections = nginx.active();
            Progress.say("  webhook drain: %,d rows in %.2f s = %,.0f rows/s, %,d connections open to nginx afterwards",
                    webhook.count(), webhook.seconds(), webhook.perSecond(), connections);
            bench.api().deleteTrigger(APP, trigger);

            Results.Throughput noop = drain != null ? drain.ours() : DrainPhase.noop(bench);
            Progress.say("  no-op drain (a): %,.0f rows/s%s", noop.perSecond(), drain != null ? " (part 1)" : "");

            SignedPosts.Post post = SignedPosts.make(1).get(0);
            int wrkConnections = (int) Math.max(1, connections);
            int seconds = (int) Math.min(30, Math.max(3, Math.ceil(webhook.seconds())));
            Wrk.run(s.target(), nginx.url("/hook"), post, wrkConnections, Math.min(seconds, s.clientWarmupSeconds()));
            Results.Throughput floor = Wrk.run(s.target(), nginx.url("/hook"), post, wrkConnections, seconds);
            Results.Webhook w = new Results.Webhook(s.webhookRows(), webhook, noop, connections, floor);
            Progress.say("  HTTP floor (wrk, %d connections): %,.0f requests/s; webhook/no-op = %.2f (target >= 0.7), "
                    + "webhook/floor = %.2f", wrkConnections, floor.perSecond(), w.toNoop(), w.toFloor());
            return w;
        }
    }
}
