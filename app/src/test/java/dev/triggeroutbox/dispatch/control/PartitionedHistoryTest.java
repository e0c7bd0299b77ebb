package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.outbox.control.RowStatuses;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import dev.triggeroutbox.platform.HousekeepingJob;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.StoreException;
import dev.triggeroutbox.schema.control.MigrationConnections;
import dev.triggeroutbox.schema.control.Migrations;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On a real PostgreSQL, with the product's migrations: the upgrade of a V7 history to the partitioned table
 * keeps every row while writers go on, retention drops the partition past it and keeps the rest readable
 * through the statements behind {@code GET /outbox/{id}} and the lineage, and an insert no partition takes
 * still succeeds.
 */
class PartitionedHistoryTest {

    private static final int V7_ROWS = 200_000;

    /** A PostgreSQL of its own for each test. */
    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    @Test
    void theUpgradeFromV7KeepsEveryRowWhileAWriterGoesOn() throws Exception {
        DataSource db = database();
        migrate(db, "7");
        UUID known = UUID.randomUUID();
        UUID root = UUID.randomUUID();
        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            // four and a half days of history, every hundredth row of one cascade
            st.execute("""
                    INSERT INTO delivery_history (outbox_id, app_id, source_kind, root_execution_id, trigger_depth, outcome,
                                                  attempt_count, last_error, created_at, finished_at, finished_by)
                    SELECT gen_random_uuid(), '%1$s', 'http', CASE WHEN g %% 100 = 0 THEN '%2$s'::uuid END, 0,
                           CASE WHEN g %% 10 = 0 THEN 'dead' ELSE 'delivered' END, 1, NULL,
                           now() - g * interval '2 seconds' - interval '1 minute', now() - g * interval '2 seconds', 'node-a'
                    FROM generate_series(1, %3$d) g
                    """.formatted(UUID.randomUUID(), root, V7_ROWS - 1));
            insert(con, known, root, "now()");
        }
        Writer writer = new Writer(db);
        Thread writing = new Thread(writer, "history-writer");
        writing.start();
        try {
            while (writer.written.get() < 10 && writer.failure.get() == null) {
                Thread.onSpinWait(); // the writer is going before the migration starts
            }
            migrate(db, null);
        } finally {
            writer.running = false;
            writing.join();
        }
        assertNull(writer.failure.get(), "the writer's inserts all succeeded");
        long total = V7_ROWS + writer.written.get();
        assertEquals(total, count(db, "SELECT count(*) FROM delivery_history"),
                "every row, those written during the migration too");
        assertEquals(total, count(db, "SELECT count(*) FROM delivery_history_v7"),
                "all in the first partition, the table from V7");
        assertTrue(writer.slowest.get() < Migrations.LOCK_TIMEOUT.toNanos(),
                "no insert waited a lock timeout: " + writer.slowest.get() / 1_000_000 + " ms");
        assertEquals(Set.of("delivery_history_v7", "delivery_history_default"), partitions(db));

        RowStatus status = RowStatuses.on(db);
        RowState found = status.find(new OutboxId(known)).orElseThrow();
        assertEquals("delivered", found.status());
        assertEquals(new ExecutionId(root), found.rootExecutionId());
        assertEquals(V7_ROWS / 100, status.cascade(new ExecutionId(root), 10_000).size(),
                "the lineage has the whole cascade");

        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            st.execute("ANALYZE delivery_history");
        }
        String byId = plan(db, "SELECT * FROM delivery_history WHERE outbox_id = '" + known + "'");
        assertTrue(byId.contains("delivery_history_v7_outbox"), byId);
        String byRoot = plan(db, "SELECT * FROM delivery_history WHERE root_execution_id = '" + root + "'");
        assertTrue(byRoot.contains("delivery_history_v7_root"), byRoot);
        String lastMinute = plan(db,
                "SELECT count(*) FROM delivery_history WHERE outcome = 'delivered' AND finished_at > now() - interval '1 minute'");
        assertTrue(lastMinute.contains("delivery_history_v7_finished"), lastMinute);

        // and the partitions ahead come after it, from its bound on
        DeliveryHistory history = history(db);
        history.maintain();
        assertTrue(partitions(db).size() > 2, partitions(db).toString());
        assertEquals(total, count(db, "SELECT count(*) FROM delivery_history"));
    }

    @ParameterizedTest(name = "upgraded to V{0} before the report began")
    @ValueSource(strings = {"7", "8", "9", "10"})
    void anUpgradeThatMetALongTransactionGivesUpAndSucceedsWhenTriedAgain(String before) throws Exception {
        DataSource db = database();
        migrate(db, "7");
        try (Connection con = db.getConnection()) {
            insert(con, UUID.randomUUID(), null, "now()");
        }
        migrate(db, before);
        try (Connection report = db.getConnection(); Statement st = report.createStatement()) {
            report.setAutoCommit(false);
            st.execute("SELECT count(*) FROM delivery_history"); // a long report, open across the migration
            FlywayException failed = assertThrows(FlywayException.class, () -> migrate(db, null));
            assertTrue(MigrationConnections.lockTimedOut(failed), failed.toString());
            report.rollback();
        }
        Migrations.migrate(db); // as at the next try or deployment
        assertEquals(1, count(db, "SELECT count(*) FROM delivery_history"));
        assertEquals(Set.of("delivery_history_v7", "delivery_history_default"), partitions(db));
    }

    @Test
    void retentionDropsThePartitionPastItAndKeepsTheRestReadable() throws Exception {
        DataSource db = database();
        migrate(db, null);
        Instant now = now(db);
        Instant today = now.truncatedTo(ChronoUnit.DAYS);
        Instant tenDaysAgo = today.minus(10, ChronoUnit.DAYS);
        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            // a database upgraded long ago: the table from V7 has aged out, days are partitions
            st.execute("DROP TABLE delivery_history_v7");
            partition(st, "delivery_history_p_old", tenDaysAgo, tenDaysAgo.plus(1, ChronoUnit.DAYS));
            partition(st, "delivery_history_p_today", today, today.plus(1, ChronoUnit.DAYS));
        }
        UUID root = UUID.randomUUID();
        List<UUID> recent = new ArrayList<>();
        try (Connection con = db.getConnection()) {
            for (int i = 0; i < 200; i++) {
                insert(con, UUID.randomUUID(), root, "'" + tenDaysAgo.plus(1, ChronoUnit.HOURS) + "'");
                UUID id = UUID.randomUUID();
                insert(con, id, root, "now()");
                recent.add(id);
            }
        }
        assertEquals(200, count(db, "SELECT count(*) FROM delivery_history_p_old"));
        assertEquals(200, count(db, "SELECT count(*) FROM delivery_history_p_today"));

        history(db).maintain();

        Set<String> after = partitions(db);
        assertTrue(!after.contains("delivery_history_p_old") && after.contains("delivery_history_p_today"),
                after.toString());
        assertEquals(200, count(db, "SELECT count(*) FROM delivery_history"));
        assertEquals(0, count(db, "SELECT count(*) FROM pg_class WHERE relname = 'delivery_history_p_old'"),
                "dropped, not only detached");
        assertTrue(!highestBound(db).isBefore(now.plus(HistoryPartitions.AHEAD_OF_DAYS)),
                "partitions for three days ahead");
        RowStatus status = RowStatuses.on(db);
        RowState found = status.find(new OutboxId(recent.get(7))).orElseThrow();
        assertEquals("delivered", found.status());
        List<RowState> lineage = status.cascade(new ExecutionId(root), 1_000);
        assertEquals(200, lineage.size(), "the lineage has the recent rows only");
        assertTrue(lineage.stream().allMatch(r -> recent.contains(r.id().value())));

        history(db).maintain();
        assertEquals(after, partitions(db), "a second pass changes nothing");
    }

    @Test
    void aDropWaitsAtMostItsLockTimeoutBehindALongReportAndGoesThroughAtTheNextPass() throws Exception {
        DataSource db = database();
        migrate(db, null);
        Instant old = now(db).truncatedTo(ChronoUnit.DAYS).minus(10, ChronoUnit.DAYS);
        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            st.execute("DROP TABLE delivery_history_v7");
            partition(st, "delivery_history_p_old", old, old.plus(1, ChronoUnit.DAYS));
        }
        DeliveryHistory history = history(db);
        try (Connection report = db.getConnection(); Statement st = report.createStatement()) {
            report.setAutoCommit(false);
            st.execute("SELECT count(*) FROM delivery_history"); // its lock on every partition lasts until it ends
            long t0 = System.nanoTime();
            StoreException failed = assertThrows(StoreException.class, history::maintain);
            long waited = System.nanoTime() - t0;
            assertEquals("55P03", failed.sqlException().getSQLState(), failed.toString());
            assertTrue(waited < DeliveryHistory.DDL_LOCK_TIMEOUT.multipliedBy(3).toNanos(), waited / 1_000_000 + " ms");
            try (Connection writer = db.getConnection()) {
                insert(writer, UUID.randomUUID(), null, "now()"); // writers are not held once the drop gave up
            }
            report.rollback();
        }
        assertTrue(partitions(db).contains("delivery_history_p_old"));
        history.maintain();
        assertTrue(!partitions(db).contains("delivery_history_p_old"), partitions(db).toString());
    }

    @Test
    void anInsertNoPartitionTakesLandsInTheDefaultOneAndIsPrunedThereByAge() throws Exception {
        DataSource db = database();
        migrate(db, null);
        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            st.execute("DROP TABLE delivery_history_v7");
        }
        DeliveryHistory history = history(db);
        history.maintain();
        UUID future = UUID.randomUUID();
        UUID past = UUID.randomUUID();
        try (Connection con = db.getConnection()) {
            insert(con, future, null, "now() + interval '30 days'"); // a clock set far ahead
            insert(con, past, null, "now() - interval '30 days'");   // and far back
        }
        assertEquals(2, count(db, "SELECT count(*) FROM delivery_history_default"));
        assertEquals("dead", RowStatuses.on(db).find(new OutboxId(future)).orElseThrow().status());

        HousekeepingJob.Pruning p = history.pruning();
        try (Connection con = db.getConnection(); PreparedStatement ps = con.prepareStatement(p.deleteSql())) {
            ps.setLong(1, p.retention());
            ps.setInt(2, p.chunk());
            assertEquals(1, ps.executeUpdate(), "the row past retention");
        }
        assertEquals(1, count(db, "SELECT count(*) FROM delivery_history_default"));
        history.maintain(); // a future row in the default partition stops nothing
        assertEquals(1, count(db, "SELECT count(*) FROM delivery_history"));
    }

    /** Inserts history rows one at a time, as the finishing statements do, until told to stop. */
    private static final class Writer implements Runnable {
        private final DataSource db;
        final AtomicLong written = new AtomicLong();
        final AtomicLong slowest = new AtomicLong();
        final AtomicReference<Exception> failure = new AtomicReference<>();
        volatile boolean running = true;

        Writer(DataSource db) {
            this.db = db;
        }

        @Override
        public void run() {
            try (Connection con = db.getConnection()) {
                while (running) {
                    long t0 = System.nanoTime();
                    insert(con, UUID.randomUUID(), null, "now()");
                    slowest.accumulateAndGet(System.nanoTime() - t0, Math::max);
                    written.incrementAndGet();
                }
            } catch (Exception e) {
                failure.set(e);
            }
        }
    }

    private static void insert(Connection con, UUID id, UUID root, String finishedAt) throws SQLException {
        try (PreparedStatement ps = con.prepareStatement("""
                INSERT INTO delivery_history (outbox_id, app_id, source_kind, root_execution_id, trigger_depth, outcome,
                                              attempt_count, created_at, finished_at, finished_by)
                VALUES (?, ?, 'http', ?, 0, ?, 1, now() - interval '1 second', %s, 'node-a')
                """.formatted(finishedAt))) {
            ps.setObject(1, id);
            ps.setObject(2, UUID.randomUUID());
            ps.setObject(3, root);
            ps.setString(4, finishedAt.contains("+ interval") ? "dead" : "delivered");
            ps.executeUpdate();
        }
    }

    private static void partition(Statement st, String name, Instant from, Instant to) throws SQLException {
        st.execute("CREATE TABLE " + name + " (LIKE delivery_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
        st.execute("ALTER TABLE delivery_history ATTACH PARTITION " + name + " FOR VALUES FROM ('" + from + "') TO ('"
                + to + "')");
    }

    private static DeliveryHistory history(DataSource db) {
        DeliveryHistory history = new DeliveryHistory();
        history.jdbc = new Jdbc(db);
        history.retentionHours = 168;
        return history;
    }

    private static DataSource database() {
        return POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
    }

    /** As the deployment migrates, once; {@code target} null is the newest. */
    private static void migrate(DataSource db, String target) {
        Migrations.configuration(db)
                .target(target == null ? MigrationVersion.LATEST : MigrationVersion.fromVersion(target))
                .load()
                .migrate();
    }

    private static long count(DataSource db, String sql) throws SQLException {
        try (Connection con = db.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Instant now(DataSource db) throws SQLException {
        try (Connection con = db.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    private static Set<String> partitions(DataSource db) throws SQLException {
        Set<String> names = new TreeSet<>();
        try (Connection con = db.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'delivery_history'::regclass")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static Instant highestBound(DataSource db) throws SQLException {
        try (Connection con = db.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery(
                        """
                SELECT max(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([^'']+)''\\)')::timestamptz)
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'delivery_history'::regclass""")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    private static String plan(DataSource db, String sql) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Connection con = db.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
