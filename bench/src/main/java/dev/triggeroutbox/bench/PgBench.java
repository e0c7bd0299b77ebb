package dev.triggeroutbox.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The database's own ceiling for a producer's transaction: pgbench (PostgreSQL's C load generator) runs, with no
 * application server at all, the single-row INSERT of the floor (one round trip, autocommit) and then the transaction
 * that one {@code Outbox.publish} in a JTA transaction sends (the product's fan-out {@code INSERT … SELECT …
 * RETURNING} pipelined after {@code BEGIN}, as the JDBC driver sends it, then {@code COMMIT}: two round trips). The
 * second rate is the most the Java API can reach on this machine, whatever the server costs: against the floor, the
 * Java API's ceiling.
 */
final class PgBench {

    static final Path BINARY = Path.of("/usr/bin/pgbench");

    /** What one Java API publish sends, its parameters as literals: the statement of {@code OutboxWriter.fanOut}. */
    private static final String FAN_OUT = """
            INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, payload, origin_principal,
                                trigger_depth, root_execution_id, next_attempt_at, parent_id, traceparent,
                                tracestate, ordering_key)
            SELECT gen_random_uuid(), t.app_id, t.source_kind, t.id, t.script_id, CAST('%2$s' AS jsonb), 'bench', 0,
                   gen_random_uuid(), greatest(NULL::timestamptz, now()), NULL::uuid, NULL::text, NULL::text,
                   NULL::text
            FROM triggers t
            WHERE t.app_id = '%1$s' AND t.source_kind = 'kv' AND t.enabled
            RETURNING id, trigger_id;
            """;

    /** The floor's statement (EnqueuePhase), its ids made by the database. */
    private static final String SINGLE = """
            INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, origin_principal, trigger_depth,
                                root_execution_id, next_attempt_at)
            VALUES (gen_random_uuid(), '%1$s', 'kv', '%2$s', CAST('%3$s' AS jsonb), 'bench', 0, gen_random_uuid(), now());
            """;

    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");

    /** The two figures of one run: single-row INSERTs and Java API transactions per second. */
    record Ceiling(Results.Throughput single, Results.Throughput transaction) {
        /**
         * The CPU per transaction left to the server if the Java API is to reach {@code share} of {@code floor}: the
         * machine's CPU time per transaction at that rate, less what PostgreSQL (and pgbench) took per transaction
         * here with the cores to themselves. Negative when even a server that costs nothing could not.
         */
        double serverBudgetMicros(Results.Throughput floor, double share) {
            double cores = Runtime.getRuntime().availableProcessors();
            return cores * 1e6 / (share * floor.perSecond()) - cores * 1e6 / transaction.perSecond();
        }
    }

    private PgBench() {
    }

    static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    /** Runs both scripts in turn, {@code seconds} each after a warm-up of as long, over {@code clients} connections. */
    static Ceiling run(Database db, Path target, UUID app, UUID trigger, int clients, int seconds)
            throws IOException, InterruptedException {
        String payload = SignedPosts.payload(1);
        Path dir = Files.createDirectories(target.resolve("pgbench"));
        Path single = Files.writeString(dir.resolve("single.sql"), SINGLE.formatted(app, trigger, payload));
        Path transaction = Files.writeString(dir.resolve("transaction.sql"),
                "\\startpipeline\nBEGIN;\n" + FAN_OUT.formatted(app, payload).strip() + "\n\\endpipeline\nCOMMIT;\n");
        run(db, single, "warm-up", clients, seconds);
        Results.Throughput s = run(db, single, "single-row INSERT, pgbench", clients, seconds);
        run(db, transaction, "warm-up", clients, seconds);
        return new Ceiling(s, run(db, transaction, "Java API transaction, pgbench", clients, seconds));
    }

    private static Results.Throughput run(Database db, Path script, String label, int clients, int seconds)
            throws IOException, InterruptedException {
        URI uri = URI.create(db.url.substring("jdbc:".length()));
        Path out = script.resolveSibling(script.getFileName() + ".out");
        ProcessBuilder pb = new ProcessBuilder(List.of(BINARY.toString(), "-n", "-M", "prepared", "-c",
                Integer.toString(clients), "-j", "1", "-T", Integer.toString(seconds), "-f", script.toString(), "-h",
                uri.getHost(), "-p", Integer.toString(uri.getPort()), "-U", db.user, uri.getPath().substring(1)))
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("PGPASSWORD", db.password);
        Process p = pb.start();
        if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("pgbench did not end; see " + out);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        Matcher m = TPS.matcher(text);
        if (p.exitValue() != 0 || !m.find()) {
            throw new IOException("pgbench failed (exit " + p.exitValue() + "): " + text);
        }
        return new Results.Throughput(label, Math.round(Double.parseDouble(m.group(1)) * seconds), seconds);
    }
}
