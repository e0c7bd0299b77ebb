package dev.triggeroutbox.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Prepares what the integration tests' server needs before any test, so before Arquillian starts
 * the server: a PostgreSQL (the datasource points at it through DB_URL) and the test accounts.
 * Stops PostgreSQL at the end. Active only where failsafe sets {@code outbox.it.pg.port}; unit
 * tests start nothing.
 */
public class ItSession implements LauncherSessionListener {

    private static LocalPostgres postgres;
    private static Path dataDir;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String port = System.getProperty("outbox.it.pg.port");
        if (port == null || postgres != null) {
            return;
        }
        try {
            Path dir = Files.createTempDirectory("outbox-it-pg");
            dataDir = dir;
            // keeps its data so that a fault test can stop and start it; the directory is fresh per run
            postgres = LocalPostgres.start(Integer.parseInt(port), dir, true);
            ItUsers.addAll(ItServer.current());
        } catch (Exception e) {
            throw new IllegalStateException(
                    "could not prepare the integration tests (PostgreSQL on port " + port + ", test users)", e);
        }
    }

    /** The running test PostgreSQL, for fault tests (null outside failsafe). */
    public static LocalPostgres postgres() {
        return postgres;
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (postgres != null) {
            try {
                postgres.close();
                try (var files = Files.walk(dataDir)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            } catch (Exception e) {
                System.err.println("stopping the test PostgreSQL failed: " + e);
            }
        }
    }
}
