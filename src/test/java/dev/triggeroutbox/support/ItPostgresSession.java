package dev.triggeroutbox.support;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Starts the integration tests' PostgreSQL before any test (and so before Arquillian starts
 * WildFly, whose datasource points at it through DB_URL), and stops it at the end. Active only
 * where failsafe sets {@code outbox.it.pg.port}; unit tests start nothing.
 */
public class ItPostgresSession implements LauncherSessionListener {

    private LocalPostgres postgres;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String port = System.getProperty("outbox.it.pg.port");
        if (port == null || postgres != null) {
            return;
        }
        try {
            Path dir = Files.createTempDirectory("outbox-it-pg");
            postgres = LocalPostgres.start(Integer.parseInt(port), dir, false);
        } catch (Exception e) {
            throw new IllegalStateException("could not start PostgreSQL for the integration tests on port " + port, e);
        }
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (postgres != null) {
            try {
                postgres.close();
            } catch (Exception e) {
                System.err.println("stopping the test PostgreSQL failed: " + e);
            }
        }
    }
}
