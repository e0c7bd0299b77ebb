package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one PostgreSQL of the cluster: embedded (zonky, from Maven Central) in a directory of its own, kept
 * across a crash so that it can be started again on the same data. {@code synchronous_commit=on}: a commit
 * is acknowledged only when its WAL is written, as on a production server, so a crash of PostgreSQL may not
 * take acknowledged rows with it ({@code fsync} stays off: the faults kill processes, not the machine, and
 * what was written survives in the page cache).
 */
final class Postgres implements AutoCloseable {

    static final String USER = "outbox";
    static final String PASSWORD = "outbox";

    private final int port;
    private final Path dataDir;
    private EmbeddedPostgres pg;
    private boolean closed;

    private Postgres(int port, Path dataDir) {
        this.port = port;
        this.dataDir = dataDir;
    }

    static Postgres start(int port) throws IOException, SQLException {
        Postgres db = new Postgres(port, Files.createTempDirectory("trigger-outbox-faults-pg"));
        Progress.say("starting an embedded PostgreSQL on port %d (data in %s)", port, db.dataDir);
        db.boot();
        try (Connection con = db.pg.getPostgresDatabase().getConnection(); Statement st = con.createStatement()) {
            st.execute("CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'");
            st.execute("CREATE DATABASE outbox OWNER " + USER);
        }
        return db;
    }

    private void boot() throws IOException {
        try {
            pg = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(false) // never: close() after a crash must not delete the data
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("synchronous_commit", "on")
                    .setPGStartupWait(java.time.Duration.ofSeconds(60)) // 10 s by default: too short on a busy machine
                    .start();
        } catch (IOException | RuntimeException e) {
            throw new IOException("embedded PostgreSQL did not start on port " + port
                    + " (in use? set -Dfaults.pg.port): " + e.getMessage(), e);
        }
    }

    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/outbox";
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), USER, PASSWORD);
    }

    /**
     * Crashes PostgreSQL: SIGKILL to the postmaster and every backend at once, as the kernel's OOM killer or
     * a power cut to the process would. Nothing is flushed or shut down; the next start runs crash recovery.
     */
    synchronized void crash() throws IOException {
        long postmaster = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
        ProcessHandle main = ProcessHandle.of(postmaster)
                .orElseThrow(() -> new IllegalStateException("no postmaster " + postmaster));
        List<ProcessHandle> all = Stream.concat(Stream.of(main), main.descendants()).toList();
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : all) {
            p.onExit().join();
        }
        // zonky's own stop would run pg_ctl against a dead server; only release its lock on the directory
        try {
            pg.close();
        } catch (IOException | RuntimeException ignored) {
            // the server is gone already, which is what close() would have done
        }
        pg = null;
    }

    /** Starts PostgreSQL again on the same port and data directory (crash recovery runs first). */
    synchronized void restart() throws IOException {
        boot();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (pg != null) {
            try {
                pg.close();
            } catch (IOException e) {
                System.err.println("stopping PostgreSQL: " + e);
            }
            pg = null;
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + dataDir + ": " + e);
        }
    }
}
