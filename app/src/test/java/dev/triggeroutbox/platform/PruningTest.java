package dev.triggeroutbox.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.outbox.control.DeliveryAttempts;
import dev.triggeroutbox.replies.control.StoredReplies;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.schema.control.Migrations;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL, each table owner's pruning statement as it declares it ({@link HousekeepingJob.Pruning}):
 * it deletes what is older than the retention, a chunk at a time, and keeps everything younger.
 */
class PruningTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static DataSource db;

    /** The database starts as a test starts (not before it); the schema is migrated once. */
    private static void migrate() {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        Migrations.configuration(db).load().migrate();
    }

    @Test
    void repliesPastTheirRetentionGoAChunkAtATime() throws Exception {
        migrate();
        for (int i = 0; i < 3; i++) {
            run("INSERT INTO replies (id, app_id, outbox_id, outcome, created_at) "
                    + "VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'delivered', now() - interval '11 minutes')");
        }
        run("INSERT INTO replies (id, app_id, outbox_id, outcome) VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'dead')");
        HousekeepingJob.Pruning p = job(new StoredReplies(), "retentionMillis", 600_000L).pruning();

        assertEquals(2, prune(p, 2), "at most a chunk");
        assertEquals(1, prune(p, 2));
        assertEquals(0, prune(p, 2));
        assertEquals(1, count("replies"), "the young answer stays");
    }

    @Test
    void idempotencyKeysPastTheirRetentionGo() throws Exception {
        migrate();
        run("INSERT INTO idempotency_keys (principal, key, fingerprint, created_at) VALUES ('a', 'old', 'f', now() - interval '25 hours')");
        run("INSERT INTO idempotency_keys (principal, key, fingerprint, created_at) VALUES ('a', 'young', 'f', now() - interval '23 hours')");
        HousekeepingJob.Pruning p = job(new IdempotencyKeys(), "retentionHours", 24).pruning();

        assertEquals(1, prune(p, 100));
        assertEquals(1, count("idempotency_keys"));
        assertEquals(1, count("idempotency_keys WHERE key = 'young'"));
    }

    @Test
    void auditEntriesPastTheirRetentionGoOldestFirst() throws Exception {
        migrate();
        run("INSERT INTO admin_audit (at, principal, action) VALUES (now() - interval '400 days', 'admin', 'oldest')");
        run("INSERT INTO admin_audit (at, principal, action) VALUES (now() - interval '366 days', 'admin', 'old')");
        run("INSERT INTO admin_audit (at, principal, action) VALUES (now() - interval '364 days', 'admin', 'kept')");
        HousekeepingJob.Pruning p = job(new AuditLog(), "retentionDays", 365).pruning();

        assertEquals(1, prune(p, 1));
        assertEquals(0, count("admin_audit WHERE action = 'oldest'"), "the oldest goes first");
        assertEquals(1, prune(p, 1));
        assertEquals(0, prune(p, 1));
        assertEquals(1, count("admin_audit WHERE action = 'kept'"));
    }

    @Test
    void deliveryAttemptsPastTheHistoryRetentionGo() throws Exception {
        migrate();
        run("INSERT INTO delivery_attempts (outbox_id, attempt, app_id, finished_at, duration_ms, outcome) "
                + "VALUES (gen_random_uuid(), 1, gen_random_uuid(), now() - interval '169 hours', 5, 'failed')");
        run("INSERT INTO delivery_attempts (outbox_id, attempt, app_id, finished_at, duration_ms, outcome) "
                + "VALUES (gen_random_uuid(), 1, gen_random_uuid(), now() - interval '167 hours', 5, 'failed')");
        HousekeepingJob.Pruning p = job(new DeliveryAttempts(), "retentionHours", 168).pruning();

        assertEquals(1, prune(p, 100));
        assertEquals(1, count("delivery_attempts"));
    }

    /** The job with its retention set as the server's configuration would (the field the config injects). */
    private static <T> T job(T job, String field, Object retention) throws ReflectiveOperationException {
        Field f = job.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(job, retention);
        return job;
    }

    /** Runs one pass of the pruning statement with {@code chunk}; answers the rows it changed. */
    private static int prune(HousekeepingJob.Pruning p, int chunk) throws SQLException {
        try (Connection con = db.getConnection(); PreparedStatement ps = con.prepareStatement(p.deleteSql())) {
            ps.setLong(1, p.retention());
            ps.setInt(2, chunk);
            return ps.executeUpdate();
        }
    }

    private static void run(String sql) throws SQLException {
        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            st.execute(sql);
        }
    }

    private static long count(String tableAndWhere) throws SQLException {
        try (Connection con = db.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM " + tableAndWhere)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
