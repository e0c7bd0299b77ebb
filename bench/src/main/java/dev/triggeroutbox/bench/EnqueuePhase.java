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

    /** One unit of work of a worker: a request or an insert; throws when it was refused. */
    private interface Step {
        void run() throws Exception;
    }

    /** Creates the per-worker state (a client, a connection) and returns its step; closed at the end. */
    private interface Worker {
        Step open(int worker, List<AutoCloseable> toClose) throws Exception;
    }

    /**
     * Runs {@code workers} workers through the warm-up and the measured window, and checks that the
     * table holds exactly as many rows as steps succeeded. Returns the steps of the measured window.
     */
    private static Results.Throughput timed(Bench bench, String what, Worker worker) throws Exception {
        Settings s = bench.settings();
        long start = System.nanoTime() + s.enqueueWarmupSeconds() * 1_000_000_000L;
        long end = start + s.enqueueSeconds() * 1_000_000_000L;
        AtomicLong measured = new AtomicLong();
        AtomicLong all = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(s.clients());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < s.clients(); c++) {
                int id = c;
                running.add(pool.submit(() -> {
                    List<AutoCloseable> toClose = new ArrayList<>();
                    try {
                        Step step = worker.open(id, toClose);
                        long now;
                        while ((now = System.nanoTime()) < end) {
                            step.run();
                            all.incrementAndGet();
                            if (now >= start) {
                                measured.incrementAndGet();
                            }
                        }
                    } finally {
                        for (AutoCloseable c2 : toClose) {
                            c2.close();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        long rows = bench.tables().count("outbox");
        if (rows != all.get()) {
            throw new IllegalStateException(what + ": " + all.get() + " accepted, but " + rows + " rows written");
        }
        return new Results.Throughput(what, measured.get(), s.enqueueSeconds());
    }

    private static Results.Throughput rest(Bench bench) throws Exception {
        String path = "/apps/" + bench.tables().app() + "/events";
        return timed(bench, "REST publish", (client, toClose) -> {
            HttpClient http = Api.newClient();
            long[] n = {0};
            return () -> {
                HttpRequest request = Api.postJson(path,
                        "{\"sourceKind\":\"kv\",\"payload\":{\"client\":" + client + ",\"n\":" + n[0]++ + "}}",
                        Duration.ofSeconds(30));
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 202) {
                    throw new IllegalStateException("publish answered " + r.statusCode() + ": " + r.body());
                }
            };
        });
    }

    private static Results.Throughput floor(Bench bench) throws Exception {
        OutboxTables t = bench.tables();
        return timed(bench, "single-row INSERT", (connection, toClose) -> {
            Connection con = bench.db().connect();
            toClose.add(con);
            PreparedStatement ps = con.prepareStatement(FLOOR_INSERT);
            toClose.add(0, ps);
            return () -> {
                UUID id = UUID.randomUUID();
                ps.setObject(1, id);
                ps.setObject(2, t.app());
                ps.setObject(3, t.trigger());
                ps.setString(4, "{\"n\":1}");
                ps.setObject(5, id);
                ps.executeUpdate();
            };
        });
    }
}
