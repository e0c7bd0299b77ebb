package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The database under test: an embedded PostgreSQL (zonky, from Maven Central) in a temporary
 * directory, or the user's when {@code DB_URL} is set. The server and the harness use the same one.
 */
final class Database implements AutoCloseable {

    final String url;
    final String user;
    final String password;
    private final EmbeddedPostgres embedded;
    private final Path dataDir;
    private boolean closed;

    private Database(String url, String user, String password, EmbeddedPostgres embedded, Path dataDir) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
        this.dataDir = dataDir;
    }

    static Database start(int port) throws IOException, SQLException {
        String url = System.getenv("DB_URL");
        if (url != null && !url.isBlank()) {
            Progress.say("using the PostgreSQL at DB_URL (%s)", url);
            return new Database(url, env("DB_USER", "outbox"), env("DB_PASSWORD", "outbox"), null, null);
        }
        Path dir = Files.createTempDirectory("trigger-outbox-bench-pg");
        Progress.say("starting an embedded PostgreSQL on port %d (data in %s)", port, dir);
        EmbeddedPostgres pg;
        try {
            // the same settings as the demo's and the integration tests' PostgreSQL (testkit/LocalPostgres)
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(true)
                    .setServerConfig("max_connections", "200");
            if (Statements.WANTED) { // -Dbench.pg-statements=true: what each statement cost the database (Statements)
                b.setServerConfig("shared_preload_libraries", "pg_stat_statements")
                        .setServerConfig("pg_stat_statements.track_planning", "on");
            }
            pg = b
                    .setPGStartupWait(java.time.Duration.ofSeconds(60)) // 10 s by default: too short on a busy machine
                    .start();
        } catch (IOException | RuntimeException e) {
            delete(dir);
            throw new IOException("embedded PostgreSQL did not start on port " + port
                    + " (in use? set -Dbench.pg.port): " + e.getMessage(), e);
        }
        try (Connection con = pg.getPostgresDatabase().getConnection(); Statement st = con.createStatement()) {
            st.execute("CREATE ROLE outbox LOGIN PASSWORD 'outbox'");
            st.execute("CREATE DATABASE outbox OWNER outbox");
        }
        if (Statements.WANTED) {
            try (Connection con = pg.getDatabase("postgres", "outbox").getConnection();
                    Statement st = con.createStatement()) {
                st.execute("CREATE EXTENSION pg_stat_statements");
                st.execute("GRANT pg_read_all_stats TO outbox");
                st.execute("GRANT EXECUTE ON FUNCTION pg_stat_statements_reset TO outbox");
            }
        }
        return new Database("jdbc:postgresql://127.0.0.1:" + port + "/outbox", "outbox", "outbox", pg, dir);
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    boolean embedded() {
        return embedded != null;
    }

    /** Version and the settings that change what the figures mean. */
    String describe() throws SQLException {
        try (Connection con = connect();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery("""
                        SELECT split_part(version(), ' on ', 1), current_setting('synchronous_commit'),
                               current_setting('fsync'), current_setting('shared_buffers'),
                               current_setting('autovacuum')""")) {
            rs.next();
            return rs.getString(1) + (embedded() ? " (embedded)" : "") + ", synchronous_commit=" + rs.getString(2)
                    + ", fsync=" + rs.getString(3) + ", shared_buffers=" + rs.getString(4)
                    + ", autovacuum=" + rs.getString(5);
        }
    }

    /** Stops the embedded PostgreSQL and deletes its data. Safe to call twice. */
    @Override
    public synchronized void close() {
        if (embedded != null && !closed) {
            closed = true;
            Progress.say("stopping PostgreSQL");
            try {
                embedded.close();
            } catch (IOException e) {
                System.err.println("stopping PostgreSQL: " + e);
            }
            delete(dataDir);
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    private static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + dir + ": " + e);
        }
    }
}
