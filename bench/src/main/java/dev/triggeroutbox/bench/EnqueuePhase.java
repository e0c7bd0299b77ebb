package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Part 2: writing rows. K concurrent clients publish through the REST API (one keep-alive HTTP client
 * each, one event = one row = one transaction per request), then wrk does the same over its own
 * connections, then K clients publish batches ({@code events:batch}); K producer threads publish through
 * the Java API inside the server, one event per transaction and then batches ({@code publishAll}); and K
 * JDBC connections run single-row INSERT transactions on the outbox table itself (the floor); last, pgbench runs the
 * floor's INSERT and the Java API's transaction on PostgreSQL alone ({@link PgBench}). Every part says its CPU per
 * row. Every payload is about 200 bytes. The dispatcher is paused throughout; the rows are removed after.
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
        Progress.say("[2/5] enqueue: %d concurrent clients, %d s each after %d s warm-up; batches of %d events",
                s.clients(), s.enqueueSeconds(), s.enqueueWarmupSeconds(), s.batchEvents());
        bench.pause();
        t.truncate("outbox");
        if (!s.quick()) {
            warmUp(bench);
        }

        Results.Throughput rest = costed(bench, () -> rest(bench));
        Progress.say("  REST publish, JDK client: %,.0f requests/s (%,d in %d s)", rest.perSecond(), rest.count(),
                s.enqueueSeconds());
        t.truncate("outbox");

        Results.Throughput restWrk = null;
        if (Wrk.installed()) {
            restWrk = costed(bench, () -> restWithWrk(bench));
            Progress.say("  REST publish, wrk %d connections: %,.0f requests/s", s.wrkConnections(),
                    restWrk.perSecond());
            t.truncate("outbox");
        } else {
            Progress.say("  REST publish with wrk: skipped (%s missing)", Wrk.BINARY);
        }

        Results.Throughput restBatch = costed(bench, () -> restBatch(bench));
        Progress.say("  REST batch publish: %,.0f rows/s (%,d batches of %d in %d s)", restBatch.perSecond(),
                restBatch.count() / s.batchEvents(), s.batchEvents(), s.enqueueSeconds());
        t.truncate("outbox");

        Results.Throughput javaApi = costed(bench, () -> javaApi(bench, "Java API (Outbox.publish, 1 row/tx)", 1));
        Progress.say("  Java API publish: %,.0f rows/s", javaApi.perSecond());
        t.truncate("outbox");

        Results.Throughput javaBatch = costed(bench,
                () -> javaApi(bench, "Java API (Outbox.publishAll)", s.batchEvents()));
        Progress.say("  Java API publishAll: %,.0f rows/s", javaBatch.perSecond());
        t.truncate("outbox");

        Results.Throughput floor = costed(bench, () -> floor(bench));
        Progress.say("  single-row INSERT floor: %,.0f transactions/s", floor.perSecond());
        t.truncate("outbox");

        PgBench.Ceiling ceiling = null;
        if (PgBench.installed()) {
            ceiling = PgBench.run(bench.db(), s.target(), t.app(), t.trigger(), s.clients(), s.enqueueSeconds());
            t.truncate("outbox");
        } else {
            Progress.say("  PostgreSQL alone with pgbench: skipped (%s missing)", PgBench.BINARY);
        }

        Results.Enqueue e = new Results.Enqueue(s.clients(), rest, s.wrkConnections(), restWrk, s.batchEvents(),
                restBatch,
                javaApi, javaBatch, floor, ceiling);
        if (ceiling != null) {
            Progress.say(
                    "  PostgreSQL alone (pgbench, no server): single-row INSERT %,.0f/s; the Java API's transaction "
                            + "%,.0f/s, %.2f of the floor: the Java API's ceiling here. At %.1f of the floor the server could "
                            + "spend %.0f µs of CPU per transaction",
                    ceiling.single().perSecond(),
                    ceiling.transaction().perSecond(), e.toFloor(ceiling.transaction()),
                    Results.Enqueue.JAVA_API_TARGET,
                    ceiling.serverBudgetMicros(floor, Results.Enqueue.JAVA_API_TARGET));
        }
        Progress.say("  / floor: REST (JDK) %.2f, REST (wrk) %.2f (target >= 0.25), REST batch %.2f (target >= 3), "
                + "Java API %.2f (target >= %.1f), publishAll %.2f", e.toFloor(rest), e.toFloor(restWrk),
                e.toFloor(restBatch),
                e.toFloor(javaApi), Results.Enqueue.JAVA_API_TARGET, e.toFloor(javaBatch));
        return e;
    }

    /**
     * Runs one part and says what it cost each process in CPU per row written (the rows of the part's own warm-up
     * included, counted in the table before it is emptied): where a producer path's time goes, beside its rows/s.
     */
    private static Results.Throughput costed(Bench bench, Callable<Results.Throughput> part) throws Exception {
        CpuMeter cpu = new CpuMeter(bench.server());
        CpuMeter.Sample before = cpu.sample();
        Results.Throughput measured = part.call();
        CpuMeter.Sample after = cpu.sample();
        Map<String, Double> perRow = after.microsPerRow(before, bench.tables().count("outbox"));
        perRow.remove("nginx");
        Progress.say("    CPU: %s", CpuMeter.describe(perRow));
        return measured;
    }

    /** Most time each producer path is loaded before the parts, waiting for the server's JIT to rest. */
    private static final Duration WARM_UP_LIMIT = Duration.ofMinutes(2);
    private static final int WARM_UP_ROUND_SECONDS = 5;
    /** CPU the server's JIT compilers may use in one round for the server to count as warm: a twentieth of a core. */
    private static final Duration RESTING_COMPILER_CPU = Duration.ofMillis(WARM_UP_ROUND_SECONDS * 1000L / 20);

    /**
     * Loads the server through the REST publish (wrk, else one JDK client round) and then the Java API in rounds of
     * {@value #WARM_UP_ROUND_SECONDS} s until its JIT compiler threads rest (under a twentieth of a core in a round,
     * their CPU time read from {@code /proc}), for at most {@link #WARM_UP_LIMIT} each. On two cores under this load
     * the compilers keep a good part of a core busy for a minute and more; a part measured before they rest measures
     * them, not the server a producer meets after its first minutes.
     */
    private static void warmUp(Bench bench) throws Exception {
        Settings s = bench.settings();
        SignedPosts.Post post = publishPost();
        String url = publishUrl(bench);
        settle(bench, "REST publish", () -> {
            if (Wrk.installed()) {
                Wrk.run(s.target(), url, post, s.wrkConnections(), WARM_UP_ROUND_SECONDS);
            } else {
                rest(bench);
            }
        });
        settle(bench, "Java API publish", () -> bench.api().javaApiEnqueue(bench.tables().app(), s.clients(),
                WARM_UP_ROUND_SECONDS, 0, 1));
        bench.tables().truncate("outbox");
    }

    private static void settle(Bench bench, String path, Step round) throws Exception {
        CpuMeter cpu = new CpuMeter(bench.server());
        long start = System.nanoTime();
        long compiling;
        boolean rested;
        do {
            long before = cpu.compilerNanos();
            round.run();
            compiling = cpu.compilerNanos() - before;
            rested = compiling < RESTING_COMPILER_CPU.toNanos();
        } while (!rested && System.nanoTime() - start < WARM_UP_LIMIT.toNanos());
        Progress.say("  warm-up, %s: %d s, %s the JIT compilers took %,d ms of CPU in %d s", path,
                Duration.ofNanos(System.nanoTime() - start).toSeconds(), rested ? "until" : "the limit; at its end",
                compiling / 1_000_000, WARM_UP_ROUND_SECONDS);
    }

    static Results.Throughput javaApi(Bench bench, String label, int batch) throws Exception {
        Settings s = bench.settings();
        String answer = bench.api().javaApiEnqueue(bench.tables().app(), s.clients(), s.enqueueSeconds(),
                s.enqueueWarmupSeconds(), batch);
        Results.Throughput measured = new Results.Throughput(label, (long) Api.number(answer, "rows"),
                Api.number(answer, "seconds"));
        if (measured.count() <= 0) {
            throw new IllegalStateException(label + " wrote no rows: " + answer);
        }
        return measured;
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
     * table holds exactly {@code rowsPerStep} rows per step that succeeded. Returns the rows of the measured window.
     */
    private static Results.Throughput timed(Bench bench, String what, int rowsPerStep, Worker worker) throws Exception {
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
                            all.addAndGet(rowsPerStep);
                            if (now >= start) {
                                measured.addAndGet(rowsPerStep);
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

    /** The body of one publish: an event of kind kv with a payload of about 200 bytes. */
    private static String event(long seq) {
        return "{\"sourceKind\":\"kv\",\"payload\":" + SignedPosts.payload(seq) + "}";
    }

    static Results.Throughput rest(Bench bench) throws Exception {
        String path = "/apps/" + bench.tables().app() + "/events";
        return timed(bench, "REST publish", 1, (client, toClose) -> {
            HttpClient http = Api.newClient();
            long[] n = {0};
            return () -> {
                HttpRequest request = Api.postJson(path, event(n[0]++), Duration.ofSeconds(30));
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 202) {
                    throw new IllegalStateException("publish answered " + r.statusCode() + ": " + r.body());
                }
            };
        });
    }

    /**
     * The same publish sent by wrk (a C load generator, one thread) over keep-alive connections, so that the
     * client costs next to nothing of the two cores. Every request carries the same body: there is no
     * idempotency key, so each is one event.
     */
    static Results.Throughput restWithWrk(Bench bench) throws Exception {
        Settings s = bench.settings();
        SignedPosts.Post post = publishPost();
        String url = publishUrl(bench);
        Results.Throughput warm = Wrk.run(s.target(), url, post, s.wrkConnections(), s.enqueueWarmupSeconds());
        Results.Throughput measured = Wrk.run(s.target(), url, post, s.wrkConnections(), s.enqueueSeconds());
        long sent = warm.count() + measured.count();
        // requests wrk gave up on at its end may still commit: let them, before counting and emptying the table
        long rows = bench.tables().count("outbox");
        for (long before = -1; rows != before;) {
            Thread.sleep(500);
            before = rows;
            rows = bench.tables().count("outbox");
        }
        // wrk counts answers; a request still in flight when it stopped may have committed too
        if (rows < sent || rows > sent + 2L * s.wrkConnections()) {
            throw new IllegalStateException("REST publish (wrk): " + sent + " answered, but " + rows + " rows written");
        }
        return new Results.Throughput("REST publish (wrk, " + s.wrkConnections() + " connections)", measured.count(),
                measured.seconds());
    }

    /** One single-event publish as wrk sends it (the same body every time: no idempotency key, so each is one event). */
    private static SignedPosts.Post publishPost() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", Api.AUTH);
        headers.put("Content-Type", "application/json");
        return new SignedPosts.Post(headers, event(0).getBytes(StandardCharsets.UTF_8));
    }

    private static String publishUrl(Bench bench) {
        return Api.BASE + "/apps/" + bench.tables().app() + "/events";
    }

    private static Results.Throughput restBatch(Bench bench) throws Exception {
        Settings s = bench.settings();
        String path = "/apps/" + bench.tables().app() + "/events:batch";
        return timed(bench, "REST batch publish", s.batchEvents(), (client, toClose) -> {
            HttpClient http = Api.newClient();
            long[] n = {0};
            return () -> {
                StringBuilder body = new StringBuilder("{\"events\":[");
                for (int i = 0; i < s.batchEvents(); i++) {
                    body.append(i == 0 ? "" : ",").append(event(n[0]++));
                }
                HttpRequest request = Api.postJson(path, body.append("]}").toString(), Duration.ofSeconds(60));
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 202) {
                    throw new IllegalStateException("batch publish answered " + r.statusCode() + ": " + r.body());
                }
            };
        });
    }

    static Results.Throughput floor(Bench bench) throws Exception {
        OutboxTables t = bench.tables();
        return timed(bench, "single-row INSERT", 1, (connection, toClose) -> {
            Connection con = bench.db().connect();
            toClose.add(con);
            PreparedStatement ps = con.prepareStatement(FLOOR_INSERT);
            toClose.add(0, ps);
            return () -> {
                UUID id = UUID.randomUUID();
                ps.setObject(1, id);
                ps.setObject(2, t.app());
                ps.setObject(3, t.trigger());
                ps.setString(4, SignedPosts.payload(1));
                ps.setObject(5, id);
                ps.executeUpdate();
            };
        });
    }
}
