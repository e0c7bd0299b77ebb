package dev.triggeroutbox.schema.boundary;

import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings the schema to this version at deployment, before the dispatcher starts. Versioned
 * migrations in {@code db/migration}; several nodes starting at once are serialized by Flyway's
 * lock in the database. Bean-managed transactions: Flyway commits each migration itself.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class SchemaMigrations {

    private static final Logger LOG = Logger.getLogger(SchemaMigrations.class.getName());

    @Inject
    DataSource dataSource;

    @PostConstruct
    void migrate() {
        MigrateResult result = Flyway.configure(SchemaMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .table("outbox_schema_history")
                .baselineOnMigrate(false)
                .load()
                .migrate();
        LOG.info(() -> "outbox schema at version " + result.targetSchemaVersion + " ("
                + result.migrationsExecuted + " migration(s) applied now)");
    }
}
