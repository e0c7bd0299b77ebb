package dev.triggeroutbox.schema.control;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * How the WAR's migrations run: versioned migrations in {@code db/migration}, through connections that wait
 * at most {@link #LOCK_TIMEOUT} for a table lock ({@link MigrationConnections}); one that times out is rolled
 * back whole (or, run outside a transaction, made to start over) and tried again, a few times.
 */
public final class Migrations {

    private static final Logger LOG = Logger.getLogger(Migrations.class.getName());
    /**
     * Longest wait of a migration statement for a lock. While an {@code ALTER TABLE} waits, the writers of
     * that table wait behind it: 5 s is as long as producers should stall, and longer than the
     * transactions the product itself runs (claims and finishing windows last milliseconds).
     */
    public static final Duration LOCK_TIMEOUT = Duration.ofSeconds(5);
    /** Tries of a migration that timed out on a lock before the deployment fails. */
    static final int TRIES = 3;

    private Migrations() {
    }

    /** Migrates to this WAR's version, trying again after a lock timeout (the tests of the migrations call it too). */
    public static void migrate(DataSource dataSource) {
        for (int attempt = 1;; attempt++) {
            try {
                migrateOnce(dataSource);
                return;
            } catch (RuntimeException | SQLException e) {
                if (attempt == TRIES || !MigrationConnections.lockTimedOut(e)) {
                    throw e instanceof RuntimeException r
                            ? r
                            : new IllegalStateException("outbox schema migration failed", e);
                }
                LOG.warning("outbox schema migration waited " + LOCK_TIMEOUT.toSeconds()
                        + " s for a table lock held by another transaction; rolled back, trying again (" + attempt + "/"
                        + TRIES + ")");
            }
        }
    }

    private static void migrateOnce(DataSource dataSource) throws SQLException {
        forgetFailedAttempts(dataSource);
        MigrateResult result = configuration(dataSource).load().migrate();
        LOG.info(() -> "outbox schema at version " + result.targetSchemaVersion + " ("
                + result.migrationsExecuted + " migration(s) applied now)");
    }

    /**
     * A migration that runs outside a transaction (V10 builds an index CONCURRENTLY) and fails is not rolled
     * back: Flyway records it as failed and would refuse to go on. Such a migration is written to be run
     * again from the start (V10 drops its half-built index first), so its record goes before every try.
     */
    private static void forgetFailedAttempts(DataSource dataSource) throws SQLException {
        try (Connection con = dataSource.getConnection();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery("SELECT to_regclass('outbox_schema_history') IS NOT NULL")) {
            rs.next();
            if (rs.getBoolean(1)) {
                int forgotten = st.executeUpdate("DELETE FROM outbox_schema_history WHERE NOT success");
                if (forgotten > 0) {
                    LOG.warning("outbox schema migration: " + forgotten
                            + " failed attempt(s) of a migration outside a transaction forgotten; running it again");
                }
            }
        }
    }

    /**
     * How this WAR's migrations run on {@code dataSource} (the tests of the migrations use it too). Flyway's
     * lock between nodes is a session-level advisory lock, not one held in an open transaction: a
     * transaction held open for the whole run would be waited for by {@code CREATE INDEX CONCURRENTLY}
     * (V10) until its lock timeout.
     */
    public static FluentConfiguration configuration(DataSource dataSource) {
        FluentConfiguration configuration = Flyway.configure(Migrations.class.getClassLoader())
                .dataSource(MigrationConnections.withLockTimeout(dataSource, LOCK_TIMEOUT))
                .locations("classpath:db/migration")
                .table("outbox_schema_history")
                .baselineOnMigrate(false);
        configuration.getConfigurationExtension(PostgreSQLConfigurationExtension.class).setTransactionalLock(false);
        return configuration;
    }
}
