package dev.triggeroutbox.schema.boundary;

import dev.triggeroutbox.schema.control.MigrationConnections;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings the schema to this version at deployment, before the dispatcher starts. Versioned
 * migrations in {@code db/migration}; several nodes starting at once are serialized by Flyway's
 * lock in the database. Bean-managed transactions: Flyway commits each migration itself. Migrations wait
 * at most {@link #LOCK_TIMEOUT} for a table lock, so a migration never holds every writer of a table
 * queued behind a long transaction; one that times out is rolled back whole and tried again, a few times.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class SchemaMigrations {

    private static final Logger LOG = Logger.getLogger(SchemaMigrations.class.getName());
    /**
     * Longest wait of a migration statement for a lock. While an {@code ALTER TABLE} waits, the writers of
     * that table wait behind it: 5 s is as long as producers should stall, and longer than the
     * transactions the product itself runs (claims and finishing windows last milliseconds).
     */
    static final Duration LOCK_TIMEOUT = Duration.ofSeconds(5);
    /** Tries of a migration that timed out on a lock before the deployment fails. */
    static final int TRIES = 3;

    @Inject
    DataSource dataSource;

    @PostConstruct
    void migrate() {
        for (int attempt = 1; ; attempt++) {
            try {
                migrateOnce();
                return;
            } catch (RuntimeException e) {
                if (attempt == TRIES || !MigrationConnections.lockTimedOut(e)) {
                    throw e;
                }
                LOG.warning("outbox schema migration waited " + LOCK_TIMEOUT.toSeconds()
                        + " s for a table lock held by another transaction; rolled back, trying again (" + attempt + "/" + TRIES + ")");
            }
        }
    }

    private void migrateOnce() {
        MigrateResult result = Flyway.configure(SchemaMigrations.class.getClassLoader())
                .dataSource(MigrationConnections.withLockTimeout(dataSource, LOCK_TIMEOUT))
                .locations("classpath:db/migration")
                .table("outbox_schema_history")
                .baselineOnMigrate(false)
                .load()
                .migrate();
        LOG.info(() -> "outbox schema at version " + result.targetSchemaVersion + " ("
                + result.migrationsExecuted + " migration(s) applied now)");
    }
}
