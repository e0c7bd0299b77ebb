package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.schema.control.Migrations;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL: the claim and the expired-lease recovery hold no row lock once they have returned, even
 * on a connection handed out in a transaction that its caller would commit later (as a pool can hand one out).
 * A node paused between such a statement and its commit would otherwise hold rows that other nodes claimed and
 * must finish (fault scenario 3 saw 955 rows delivered twice that way).
 */
class ClaimLocksTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static final Claims.Room ANY_ROOM = new Claims.Room(List.of(), List.of(), Map.of(), Map.of(), 100, 100);

    private DataSource db;
    private Connection held;
    private Claims claims;
    private final UUID app = UUID.randomUUID();

    /** Called first by each test: the extension starts its PostgreSQL just before the test runs. */
    private void migrate() throws SQLException {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        Migrations.configuration(db).load().migrate();
        held = db.getConnection();
        held.setAutoCommit(false);
        claims = new Claims();
        claims.dataSource = keeping(held);
    }

    @AfterEach
    void release() throws SQLException {
        if (held != null) {
            if (!held.getAutoCommit()) {
                held.rollback();
            }
            held.close();
        }
    }

    @Test
    void aClaimKeepsNoLockOnTheRowsOfItsWindowOnceItReturns() throws SQLException {
        migrate();
        for (int i = 0; i < 4; i++) {
            row();
        }
        // a claim of 2 locks a window of 3 due rows and leaves one of them
        assertEquals(2, claims.claim("node-a", ClaimToken.random(), 2, 60_000, null, ANY_ROOM).rows().size());

        assertEquals(4, touchAll(), "every row, the left one too, is free for another node's statements");
        assertEquals(2, count("SELECT count(*) FROM outbox WHERE claimed_by = 'node-a'"), "the claim is committed");
        assertFalse(inTransaction(), "the connection is not left in an open transaction");
    }

    @Test
    void theLeaseRecoveryKeepsNoLockOnceItReturns() throws SQLException {
        migrate();
        row();
        row();
        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            st.executeUpdate(
                    "UPDATE outbox SET claim_token = gen_random_uuid(), claimed_by = 'node-b', claimed_at = now(), "
                            + "lease_expires_at = now() - interval '1 second', attempt_count = 1");
        }
        assertEquals(2, claims.recoverExpiredLeases(100, null).rows());

        assertEquals(2, touchAll(), "the recovered rows are free for another node's claim");
        assertEquals(0, count("SELECT count(*) FROM outbox WHERE claim_token IS NOT NULL"),
                "the recovery is committed");
        assertFalse(inTransaction(), "the connection is not left in an open transaction");
    }

    /** Updates every row from another connection, waiting at most half a second for any row's lock. */
    private int touchAll() throws SQLException {
        try (Connection con = db.getConnection(); Statement st = con.createStatement()) {
            st.execute("SET lock_timeout = '500ms'");
            return st.executeUpdate("UPDATE outbox SET next_attempt_at = next_attempt_at");
        }
    }

    private boolean inTransaction() throws SQLException {
        try (Connection con = db.getConnection();
                PreparedStatement ps = con.prepareStatement(
                        "SELECT state FROM pg_stat_activity WHERE pid = ?")) {
            ps.setInt(1, held.unwrap(org.postgresql.PGConnection.class).getBackendPID());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getString(1).startsWith("idle in transaction");
            }
        }
    }

    private void row() throws SQLException {
        try (Connection con = db.getConnection();
                PreparedStatement ps = con.prepareStatement(
                        "INSERT INTO outbox (id, app_id, source_kind, payload) VALUES (?, ?, 'http', '{}')")) {
            ps.setObject(1, UUID.randomUUID());
            ps.setObject(2, app);
            ps.executeUpdate();
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection con = db.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** A data source that hands out {@code con} every time and keeps it open when it is closed, as a pool does. */
    private static DataSource keeping(Connection con) {
        Connection kept = (Connection) Proxy.newProxyInstance(ClaimLocksTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(con, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (DataSource) Proxy.newProxyInstance(ClaimLocksTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        return kept;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
