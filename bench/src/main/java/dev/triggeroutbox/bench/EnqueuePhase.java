package dev.triggeroutbox.bench;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Part 2: writing rows. K concurrent clients publish through the REST API (one keep-alive HTTP client
 * each, one event = one row = one transaction per request), K producer threads publish through the
 * Java API inside the server, and K JDBC connections run single-row INSERT transactions on the
 * outbox table itself (the floor). The dispatcher is paused throughout; the rows are removed after.
 */
final class EnqueuePhase {

    private static final String FLOOR_INSERT = """
            INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, origin_principal, trigger_depth,
                                root_execution_id, next_attempt_at)
            VALUES (?, ?, 'kv', ?, CAST(? AS jsonb), 'bench', 0, ?, now())   -- 1..5: id, app, trigger, payload, root
            """;

    private EnqueuePhase() {
    }

    static Results.Enqueue run(Bench bench) throws Exception {
        Settings s = bench.settings();
        OutboxTables t = bench.tables();
        Progress.say("[2/5] enqueue: %d concurrent clients, %d s each after %d s warm-up", s.clients(), s.enqueueSeconds(), s.enqueueWarmupSeconds());
        bench.pause();
        t.truncate("outbox");

        Results.Throughput rest = rest(bench);
        Progress.say("  REST publish: %,.0f requests/s (%,d in %d s)", rest.perSecond(), rest.count(), s.enqueueSeconds());
        t.truncate("outbox");

        String answer = bench.api().javaApiEnqueue(t.app(), s.clients(), s.enqueueSeconds(), s.enqueueWarmupSeconds());
        Results.Throughput javaApi = new Results.Throughput("Java API (Outbox.publish, 1 row/tx)",
                (long) Api.number(answer, "rows"), Api.number(answer, "seconds"));
        if (javaApi.count() <= 0) {
            throw new IllegalStateException("the Java API wrote no rows: " + answer);
        }
        Progress.say("  Java API publish: %,.0f rows/s", javaApi.perSecond());
        t.truncate("outbox");

        Results.Throughput floor = floor(bench);
        Progress.say("  single-row INSERT floor: %,.0f transactions/s", floor.perSecond());
        t.truncate("outbox");

        Progress.say("  REST / floor = %.2f (target >= 0.5)   Java API / floor = %.2f",
                rest.perSecond() / floor.perSecond(), javaApi.perSecond() / floor.perSecond());
        return new Results.Enqueue(s.clients(), rest, javaApi, floor);
    }

    private static Results.Throughput rest(Bench bench) throws Exception {
        Settings s = bench.settings();
        UUID app = bench.tables().app();
        String path = "/apps/" + app + "/events";
        long start = System.nanoTime() + s.enqueueWarmupSeconds() * 1_000_000_000L;
        long end = start + s.enqueueSeconds() * 1_000_000_000L;
        AtomicLong measured = new AtomicLong();
        AtomicLong all = new AtomicLong();
        ExecutorService clients = Executors.newFixedThreadPool(s.clients());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < s.clients(); c++) {
                int client = c;
                running.add(clients.submit(() -> {
                    HttpClient http = Api.newClient();
                    long i = 0;
                    long now;
                    while ((now = System.nanoTime()) < end) {
                        HttpRequest request = Api.postJson(path,
                                "{\"sourceKind\":\"kv\",\"payload\":{\"client\":" + client + ",\"n\":" + i++ + "}}",
                                Duration.ofSeconds(30));
                        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 202) {
                            throw new IllegalStateException("publish answered " + r.statusCode() + ": " + r.body());
                        }
                        all.incrementAndGet();
                        if (now >= start) {
                            measured.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            clients.shutdownNow();
        }
        long rows = bench.tables().count("outbox");
        if (rows != all.get()) {
            throw new IllegalStateException("REST publish: " + all.get() + " accepted, but " + rows + " rows written");
        }
        return new Results.Throughput("REST publish", measured.get(), s.enqueueSeconds());
    }

    private static Results.Throughput floor(Bench bench) throws Exception {
        Settings s = bench.settings();
        OutboxTables t = bench.tables();
        long start = System.nanoTime() + s.enqueueWarmupSeconds() * 1_000_000_000L;
        long end = start + s.enqueueSeconds() * 1_000_000_000L;
        AtomicLong measured = new AtomicLong();
        AtomicLong all = new AtomicLong();
        ExecutorService connections = Executors.newFixedThreadPool(s.clients());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < s.clients(); c++) {
                running.add(connections.submit(() -> {
                    try (Connection con = bench.db().connect(); PreparedStatement ps = con.prepareStatement(FLOOR_INSERT)) {
                        long now;
                        while ((now = System.nanoTime()) < end) {
                            UUID id = UUID.randomUUID();
                            ps.setObject(1, id);
                            ps.setObject(2, t.app());
                            ps.setObject(3, t.trigger());
                            ps.setString(4, "{\"n\":1}");
                            ps.setObject(5, id);
                            ps.executeUpdate();
                            all.incrementAndGet();
                            if (now >= start) {
                                measured.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            connections.shutdownNow();
        }
        long rows = t.count("outbox");
        if (rows != all.get()) {
            throw new IllegalStateException("INSERT floor: " + all.get() + " inserts, but " + rows + " rows");
        }
        return new Results.Throughput("single-row INSERT", measured.get(), s.enqueueSeconds());
    }
}
