package dev.triggeroutbox.schema.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On a real PostgreSQL: a migration through these connections gives up on a lock held by a long
 * transaction instead of queueing behind it (and every writer behind the migration), and the setting
 * does not stay on a pooled connection afterwards.
 */
class MigrationConnectionsTest {

    private static final Duration LOCK_TIMEOUT = Duration.ofMillis(300);
    /** A deadline, not a measurement: without the lock timeout the migration would wait for good. */
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void aMigrationGivesUpOnALockHeldByALongTransactionAndSucceedsOnceItEnds() throws SQLException {
        DataSource plain = postgres.getPostgresDatabase();
        try (Connection setup = plain.getConnection(); Statement st = setup.createStatement()) {
            st.execute(
                    "DROP TABLE IF EXISTS held; DROP TABLE IF EXISTS lock_test_history; CREATE TABLE held (a integer)");
        }
        Flyway flyway = Flyway.configure(MigrationConnectionsTest.class.getClassLoader())
                .dataSource(MigrationConnections.withLockTimeout(plain, LOCK_TIMEOUT))
                .locations("classpath:db/locktest")
                .table("lock_test_history")
                .baselineOnMigrate(true) // the table the test made is version 0
                .baselineVersion("0")
                .load();
        try (Connection report = plain.getConnection(); Statement st = report.createStatement()) {
            report.setAutoCommit(false);
            st.execute("SELECT count(*) FROM held"); // a long report: its lock lasts until it ends
            FlywayException failed = assertTimeoutPreemptively(DEADLINE,
                    () -> assertThrows(FlywayException.class, flyway::migrate));
            assertTrue(MigrationConnections.lockTimedOut(failed), failed.toString());
            report.rollback();
        }
        assertEquals(1, flyway.migrate().migrationsExecuted, "once the report ended");
        try (Connection check = plain.getConnection();
                Statement st = check.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT count(*) FROM information_schema.columns WHERE table_name = 'held' AND column_name = 'added'")) {
            rs.next();
            assertEquals(1, rs.getInt(1));
        }
    }

    @Test
    void aConnectionGoesBackToItsPoolWithoutTheLockTimeout() throws SQLException {
        try (Connection physical = postgres.getPostgresDatabase().getConnection()) {
            // the server's pool stands in: closing what it handed out keeps the physical connection open
            DataSource pool = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                    new Class<?>[] {DataSource.class},
                    (p, m, a) -> m.getName().equals("getConnection") ? borrowed(physical) : null);
            DataSource migrations = MigrationConnections.withLockTimeout(pool, LOCK_TIMEOUT);
            try (Connection con = migrations.getConnection()) {
                assertEquals("300ms", lockTimeout(con));
            }
            try (Connection con = migrations.getConnection()) {
                con.setAutoCommit(false);
                lockTimeout(con); // a transaction left open when the connection goes back
            }
            physical.setAutoCommit(true);
            assertEquals("0", lockTimeout(physical), "PostgreSQL's default again");
        }
    }

    private static Connection borrowed(Connection physical) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> m.getName().equals("close") ? null : m.invoke(physical, a));
    }

    private static String lockTimeout(Connection con) throws SQLException {
        try (Statement st = con.createStatement(); ResultSet rs = st.executeQuery("SHOW lock_timeout")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
