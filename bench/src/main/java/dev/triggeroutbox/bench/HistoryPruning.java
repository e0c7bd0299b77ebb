package dev.triggeroutbox.bench;

import dev.triggeroutbox.dispatch.control.DeliveryHistory;
import dev.triggeroutbox.schema.control.Migrations;
import dev.triggeroutbox.testkit.Progress;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Pruning a million delivery_history rows past retention, the two ways side by side in one PostgreSQL:
 * the V7 table with the chunked {@code DELETE} the product ran until V11 (each statement its own
 * transaction, 10,000 rows, until a chunk comes back short), and the partitioned table of V11 pruned by the
 * product's own {@link DeliveryHistory#maintain()} (dropping whole day partitions). Each schema gets the same
 * rows: {@code bench.prune-rows} finished 10 to 7 days ago and {@code bench.keep-rows} within the last 6
 * days, retention 168 hours. Sizes of table and indexes before, right after, and (for the delete) after the
 * {@code VACUUM} it leaves to do. No server: the harness and PostgreSQL only.
 *
 * <pre>
 * ./mvnw -q -Pbench verify -Dbench.main=dev.triggeroutbox.bench.HistoryPruning [-Dbench.pg.port=55470]
 * </pre>
 */
public final class HistoryPruning {

    private static final int RETENTION_HOURS = 168;
    private static final int CHUNK = 10_000;
    /** The statement of DeliveryHistory until V11, as it ran against the V7 table. */
    private static final String V7_PRUNE = """
            DELETE FROM delivery_history
            WHERE ctid = ANY (ARRAY(
                SELECT ctid FROM delivery_history
                WHERE finished_at < now() - ? * interval '1 hour'    -- 1: retention
                LIMIT ?))                                            -- 2: chunk
            """;

    private HistoryPruning() {
    }

    record Sizes(long heap, long indexes, long deadTuples) {
        String mb(long bytes) {
            return String.format("%,.1f MB", bytes / 1048576.0);
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.getInteger("bench.pg.port", 55470);
        long prune = Long.getLong("bench.prune-rows", 1_000_000);
        long keep = Long.getLong("bench.keep-rows", 250_000);
        try (Database db = Database.start(port)) {
            Progress.say("%s; load average %s", db.describe(), loadAverage());
            DataSource v7 = dataSource(db, "v7_way");
            DataSource partitioned = dataSource(db, "partitioned_way");
            Migrations.configuration(v7).locations("classpath:db/migration").schemas("v7_way").target("7").load()
                    .migrate();
            Migrations.configuration(partitioned).locations("classpath:db/migration").schemas("partitioned_way")
                    .load().migrate();
            try (Connection con = partitioned.getConnection(); Statement st = con.createStatement()) {
                // steady state long after the upgrade: the table from V7 has aged out, every day is a partition
                st.execute("DROP TABLE delivery_history_v7");
                for (int day = 10; day >= 0; day--) {
                    st.execute("""
                            DO $$
                            DECLARE
                                d timestamptz := date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '%1$d days';
                            BEGIN
                                CREATE TABLE delivery_history_bench_%1$d (LIKE delivery_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
                                EXECUTE format('ALTER TABLE delivery_history ATTACH PARTITION delivery_history_bench_%1$d FOR VALUES FROM (%%L) TO (%%L)',
                                               d, d + interval '1 day');
                            END
                            $$""".formatted(day));
                }
            }
            for (DataSource ds : new DataSource[] {v7, partitioned}) {
                fill(ds, prune, keep);
            }
            Progress.say("filled both with %,d rows past retention and %,d within it; load average %s", prune, keep,
                    loadAverage());

            Sizes v7Before = sizes(v7, false);
            long t0 = System.nanoTime();
            int statements = 0;
            long deleted = 0;
            for (int n = CHUNK; n == CHUNK; statements++) {
                try (Connection con = v7.getConnection()) {
                    n = Jdbc.update(con, V7_PRUNE, RETENTION_HOURS, CHUNK);
                }
                deleted += n;
            }
            double deleteSeconds = (System.nanoTime() - t0) / 1e9;
            Sizes v7After = sizes(v7, false);
            t0 = System.nanoTime();
            try (Connection con = v7.getConnection(); Statement st = con.createStatement()) {
                st.execute("VACUUM delivery_history");
            }
            double vacuumSeconds = (System.nanoTime() - t0) / 1e9;
            Sizes v7Vacuumed = sizes(v7, false);

            Sizes partBefore = sizes(partitioned, true);
            DeliveryHistory history = new DeliveryHistory();
            set(history, "dataSource", partitioned);
            set(history, "retentionHours", RETENTION_HOURS);
            long droppedBefore = count(partitioned, "SELECT count(*) FROM delivery_history");
            t0 = System.nanoTime();
            history.maintain();
            double dropSeconds = (System.nanoTime() - t0) / 1e9;
            long dropped = droppedBefore - count(partitioned, "SELECT count(*) FROM delivery_history");
            Sizes partAfter = sizes(partitioned, true);

            check("V7 rows left", keep, count(v7, "SELECT count(*) FROM delivery_history"));
            check("partitioned rows left", keep, count(partitioned, "SELECT count(*) FROM delivery_history"));
            check("V7 rows deleted", prune, deleted);
            check("partitioned rows dropped", prune, dropped);

            String load = loadAverage();
            System.out.println();
            System.out.printf("Pruning %,d history rows past retention (%,d kept), %s, load average %s%n%n", prune,
                    keep, db.describe(), load);
            System.out.println(
                    "| | time | heap before | indexes before | heap after | indexes after | dead tuples after |");
            System.out.println("|---|---:|---:|---:|---:|---:|---:|");
            row("V7 table, chunked DELETE (" + statements + " statements)", deleteSeconds, v7Before, v7After);
            row("V7 table, then VACUUM", vacuumSeconds, v7After, v7Vacuumed);
            row("partitioned, DROP of the day partitions (DeliveryHistory.maintain)", dropSeconds, partBefore,
                    partAfter);
            System.out.printf("%nDELETE / DROP time: %.0f×; heap kept after DELETE+VACUUM / after DROP: %.1f×%n",
                    deleteSeconds / dropSeconds, (double) v7Vacuumed.heap() / partAfter.heap());
        }
    }

    private static void row(String what, double seconds, Sizes before, Sizes after) {
        System.out.printf("| %s | %.3f s | %s | %s | %s | %s | %,d |%n", what, seconds, before.mb(before.heap()),
                before.mb(before.indexes()),
                after.mb(after.heap()), after.mb(after.indexes()), after.deadTuples());
    }

    private static DataSource dataSource(Database db, String schema) throws SQLException {
        try (Connection con = db.connect(); Statement st = con.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.url);
        ds.setUser(db.user);
        ds.setPassword(db.password);
        ds.setCurrentSchema(schema);
        return ds;
    }

    /** The same rows in both: ids, apps and lineage as the dispatcher writes them, times spread evenly. */
    private static void fill(DataSource ds, long prune, long keep) throws SQLException {
        try (Connection con = ds.getConnection(); Statement st = con.createStatement()) {
            String insert = """
                    INSERT INTO delivery_history (outbox_id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth,
                                                  outcome, attempt_count, last_error, created_at, finished_at, finished_by)
                    SELECT gen_random_uuid(), ('00000000-0000-0000-0000-00000000000' || (g %% 10))::uuid, 'kv', gen_random_uuid(),
                           gen_random_uuid(), 0, 'delivered', 1, NULL, f - interval '40 milliseconds', f, 'bench-node:4242'
                    FROM generate_series(1, %d) g, LATERAL (SELECT %s AS f) t
                    """;
            // past retention: 10 to 7 days ago (day partitions wholly past it); kept: the last 6 days
            st.execute(insert.formatted(prune,
                    "date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '10 days' + g * interval '3 days' / "
                            + (prune + 1)));
            st.execute(insert.formatted(keep, "now() - g * interval '6 days' / " + (keep + 1)));
            st.execute("VACUUM ANALYZE delivery_history");
        }
    }

    /** Heap and index bytes of the table (of all its partitions when partitioned), and its dead tuples. */
    private static Sizes sizes(DataSource ds, boolean partitioned) throws SQLException {
        String leaves = partitioned
                ? "SELECT relid FROM pg_partition_tree('delivery_history') WHERE isleaf"
                : "SELECT 'delivery_history'::regclass AS relid";
        try (Connection con = ds.getConnection(); Statement st = con.createStatement()) {
            st.execute("SELECT pg_stat_clear_snapshot()");
            long heap = Jdbc.queryLong(con, "SELECT coalesce(sum(pg_relation_size(relid)), 0) FROM (" + leaves + ") l");
            long indexes = Jdbc.queryLong(con,
                    "SELECT coalesce(sum(pg_indexes_size(relid)), 0) FROM (" + leaves + ") l");
            long dead = Jdbc.queryLong(con,
                    "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE relid IN (" + leaves + ")");
            return new Sizes(heap, indexes, dead);
        }
    }

    private static long count(DataSource ds, String sql) throws SQLException {
        try (Connection con = ds.getConnection()) {
            return Jdbc.queryLong(con, sql);
        }
    }

    private static void check(String what, long expected, long actual) {
        if (expected != actual) {
            throw new IllegalStateException(what + ": " + actual + ", expected " + expected);
        }
    }

    /** The job's injected fields, set as CDI would. */
    private static void set(Object target, String field, Object value) throws ReflectiveOperationException {
        Field f = target.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(target, value);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
