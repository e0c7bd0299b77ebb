package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import dev.triggeroutbox.testkit.WarWithClasses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;

/**
 * docs/BENCHMARKS.md: one run that starts an embedded PostgreSQL (or uses DB_URL) and the build's
 * WildFly with the WAR, measures drain, enqueue, backlog, bloat and latency side by side with
 * db-scheduler and the raw SQL floor, prints progress and the results, and writes
 * {@code bench/target/results.md}, {@code results.csv} and {@code results.svg}.
 *
 * <p>Exits 0 when every part ran and every row it wrote was accounted for; non-zero when the harness or
 * the product is broken (rows not delivered, an endpoint failing, a count that does not add up).
 * Timings are reported, never asserted.
 */
public final class Benchmark {

    static final String HANDLER = "bench-noop";
    static final UUID APP = UUID.fromString("be4c0000-0000-4000-8000-00000000be4c");

    private Benchmark() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        int status;
        try {
            run(Settings.fromSystemProperties());
            status = 0;
        } catch (Throwable e) {
            System.err.println();
            System.err.println("BENCHMARK FAILED: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private static void run(Settings s) throws Exception {
        Progress.say("Trigger Outbox benchmark, %s run (phases %s)", s.mode(), s.phases());
        Path war = s.target().resolve("trigger-outbox-bench.war");
        WarWithClasses.build(s.productWar(), s.classes(), "dev/triggeroutbox/bench/server", war);
        Files.createDirectories(s.target());

        Database[] db = new Database[1];
        List<String> options = new java.util.ArrayList<>(List.of(
                "-Doutbox.dispatch.poll-interval-ms=" + s.pollMillis(),
                "-Doutbox.dispatch.batch-size=" + s.batchSize(),
                "-Doutbox.dispatch.concurrency=" + s.concurrency(),
                "-Doutbox.webhook.allowed-hosts=127.0.0.1", // the webhook drain's receiver
                "-Doutbox.kafka.bootstrap-servers=" + KafkaPhase.BOOTSTRAP)); // the Kafka drain's broker
        // more product settings for the server, e.g. -Dbench.server-options="-Doutbox.delivery.threads=64"
        for (String option : System.getProperty("bench.server-options", "").trim().split("\\s+")) {
            if (!option.isEmpty()) {
                options.add(option);
            }
        }
        Server server = new Server(s.jbossHome(), s.target().resolve("server"), options);
        // Ctrl-C: stop what was started (close() is safe to call twice)
        Thread hook = new Thread(() -> stop(server, db[0]), "bench-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Results results = new Results();
        try {
            boolean onServer = !s.phases().equals(java.util.Set.of("clients"));
            // PostgreSQL first: its port lies in Linux's ephemeral range (32768-60999), which the clients part's
            // thousands of connections draw their local ports from; one still open there made it fail to bind in CI
            if (onServer) {
                db[0] = Database.start(s.pgPort());
            }
            if (s.runs("clients")) {
                results.clients = ClientsPhase.run(s);
            }
            if (onServer) {
                onServer(s, war, db[0], server, results);
            }
        } finally {
            write(results, s);
            stop(server, db[0]);
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        System.out.println();
        System.out.println(Report.markdown(results, s));
        Progress.say("done: %s, results.csv and results.svg", s.target().resolve("results.md"));
    }

    /** The parts that need the database and the server: starts both, runs them, checks nothing was dead-lettered. */
    private static void onServer(Settings s, Path war, Database db, Server server, Results results) throws Exception {
        requireEmptyOutbox(db);
        Progress.say("starting WildFly (base dir %s, HTTP %d, management %d)", s.target().resolve("server"),
                Server.HTTP_PORT, Server.MANAGEMENT_PORT);
        server.start(war, db);
        Progress.say("WildFly is up and the WAR is deployed");
        Api api = new Api();
        UUID trigger = api.createHandlerTrigger(APP, HANDLER);
        Bench bench = new Bench(s, db, server, api, new OutboxTables(db, APP, trigger));
        describe(results, s, db);

        if (s.runs("drain")) {
            results.drain = DrainPhase.run(bench);
        }
        if (s.runs("webhook")) {
            results.webhook = WebhookPhase.run(bench);
        }
        if (s.runs("kafka")) {
            results.kafka = KafkaPhase.run(bench);
        }
        if (s.runs("enqueue")) {
            results.enqueue = EnqueuePhase.run(bench);
        }
        if (s.runs("backlog")) {
            results.backlog = BacklogPhase.run(bench);
        }
        if (s.runs("bloat")) {
            results.bloat = BloatPhase.run(bench);
        }
        if (s.runs("notify")) {
            results.notifyCost = NotifyPhase.run(bench);
        }
        // last, because switching the wake-up off redeploys the WAR with a changed setting
        if (s.runs("latency")) {
            results.latency = LatencyPhase.run(bench);
        }
        long dead = bench.tables().count("dead_letters");
        if (dead != 0) {
            throw new IllegalStateException(dead + " rows were dead-lettered; see " + server.logFile());
        }
    }

    /** The benchmark empties the outbox tables: on a user's database, only when there is nothing in them. */
    private static void requireEmptyOutbox(Database db) throws Exception {
        if (db.embedded()) {
            return;
        }
        try (Connection con = db.connect()) {
            String exists = Jdbc.queryString(con, "SELECT to_regclass('outbox')::text");
            if (exists != null && Jdbc.queryLong(con, "SELECT count(*) FROM outbox") > 0) {
                throw new IllegalStateException("the outbox at DB_URL has rows; the benchmark empties its tables, "
                        + "so point DB_URL at a scratch database");
            }
        }
    }

    private static void describe(Results r, Settings s, Database db) throws Exception {
        r.environment.put("command",
                "`./mvnw -q -Pbench verify"
                        + (s.quick() ? " -Dbench.quick=true" : "") + "`");
        r.environment.put("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        r.environment.put("machine",
                Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name")
                        + " " + System.getProperty("os.arch") + ", Java " + System.getProperty("java.version"));
        r.environment.put("database", db.describe());
        r.environment.put("server",
                s.jbossHome().getFileName() + ", product defaults except outbox.dispatch.poll-interval-ms="
                        + s.pollMillis() + " (batch-size " + s.batchSize() + ", concurrency " + s.concurrency() + ")");
        r.environment.put("db-scheduler", s.dbSchedulerVersion() + ", " + s.workerThreads()
                + " threads, lock-and-fetch (0.5, 1.0), polling " + s.pollMillis() + " ms, Hikari pool of 40");
        r.notes.add(
                "Every bulk load is one `INSERT … SELECT generate_series` followed by `VACUUM (ANALYZE)`, as autovacuum "
                        + "would leave a table soon after; every drain first runs "
                        + String.format("%,d", s.warmupRows()) + " unmeasured rows.");
        r.notes.add("Drain (a): the dispatcher is paused with `UPDATE dispatcher_state`, the rows are written, and the "
                + "clock runs from the resume to the start of the last finishing transaction (both database time); the "
                + "server notices the resume on its next tick, so up to one poll interval is in the figure. "
                + "`delivery_history` is emptied before each drain and filled by it. (b) and (c) are timed in the "
                + "harness: from the scheduler's start to its last completion, and the JDBC loop.");
        r.notes.add(
                "Webhook drain: measured as drain (a), the rows (payload about 200 bytes) for a webhook trigger of an app "
                        + "of their own whose URL is nginx on 127.0.0.1 (`return 204`, allow-listed with outbox.webhook.allowed-hosts). "
                        + "The floor is wrk (one thread) POSTing one of the same signed requests over as many keep-alive connections as "
                        + "the server had open to nginx after the drain, for as long as the drain took (3 to 30 s).");
        r.notes.add(
                "Kafka drain: measured as drain (a), the rows (payload about 200 bytes) for a kafka trigger (key rowId) of an "
                        + "app of their own, to a topic of 3 partitions on one KRaft broker started by the harness (its own JVM, 384 MiB). "
                        + "The tool is Kafka's `ProducerPerformance` (its own JVM) sending as many 200-byte records to another topic of "
                        + "the same broker with the WAR's producer settings (acks=all, idempotent, linger 5 ms), after a run of a tenth "
                        + "as many; each record of the drain also carries the outbox headers.");
        r.notes.add("Enqueue: the dispatcher is paused; one kv trigger, so one row per event; payloads of about 200 "
                + "bytes everywhere (the floor's too). The Java API figures are measured inside the server by the "
                + "benchmark's endpoint (`/bench/enqueue`), each transaction one `Outbox.publish` or one `Outbox.publishAll`. "
                + "wrk sends the same body on every request, with BASIC auth. Every accepted request and insert is checked "
                + "against the rows in the table. A full run first loads the server through the REST publish (wrk) and the "
                + "Java API in rounds of 5 s until its JIT compiler threads rest (under 250 ms of their CPU "
                + "time in a round, read from /proc; at most 2 minutes each); every part then warms up once more before it is measured. "
                + "PostgreSQL alone: pgbench (8 connections, prepared statements, as long as a part after a warm-up as long) "
                + "runs the floor's INSERT, then `BEGIN` pipelined with the product's fan-out `INSERT … SELECT … RETURNING` "
                + "and `COMMIT`, as the JDBC driver sends one `Outbox.publish` in a JTA transaction, with no server.");
        r.notes.add("Latency: the load is produced inside the server on a fixed schedule, each event its own JTA "
                + "transaction (`Outbox.publish`); a transaction synchronization records `System.nanoTime()` at "
                + "commit and the no-op handler records it at delivery start, both in the server's JVM (a delivery that "
                + "starts before the producer thread has run that synchronization counts as 0 ms). Wake-up off: "
                + "`outbox.dispatch.wake-on-commit=false` and `outbox.dispatch.notify=false`, set on the server and the WAR "
                + "redeployed.");
        r.notes.add("Notify: the REST publish (wrk when installed, else the JDK clients) and the Java API publish (one "
                + "event per JTA transaction) as in Enqueue, with `outbox.dispatch.notify` on and off (the WAR redeployed "
                + "between), beside the INSERT floor of the same moment; rounds alternate the order (on, off; off, on).");
        r.notes.add("Backlog: the product's claim statement run from the harness with the dispatcher paused, each run "
                + "rolled back; 3 warm-up runs, then the median of 15.");
        r.notes.add("Bloat: a feeder keeps about 20,000 due rows in front of the running dispatcher; rows/s are "
                + "deliveries counted by the handler. The snapshot is a REPEATABLE READ transaction that ran "
                + "`SELECT count(*) FROM outbox` and stays open.");
    }

    private static void write(Results r, Settings s) {
        try {
            Files.createDirectories(s.target());
            Files.writeString(s.target().resolve("results.md"), Report.markdown(r, s));
            Report.writeCsv(r, s.target().resolve("results.csv"));
            Files.writeString(s.target().resolve("results.svg"), Chart.svg(r, s));
        } catch (Exception e) {
            System.err.println("writing the results failed: " + e);
        }
    }

    private static void stop(Server server, Database db) {
        server.close();
        if (db != null) {
            db.close();
        }
    }
}
