package dev.triggeroutbox.schema.boundary;

import dev.triggeroutbox.schema.control.Migrations;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import javax.sql.DataSource;

/**
 * Brings the schema to this version at deployment, before the dispatcher starts ({@link Migrations}: the
 * migrations, their lock timeout and tries). Several nodes starting at once are serialized by Flyway's lock
 * in the database. Bean-managed transactions: Flyway commits each migration itself.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class SchemaMigrations {

    @Inject
    DataSource dataSource;

    @PostConstruct
    void migrate() {
        Migrations.migrate(dataSource);
    }
}
