package dev.triggeroutbox.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The one place where the integration tests know which application server they run on (failsafe's
 * {@code outbox.it.server}: {@code wildfly}, or {@code payara} with {@code -Dpayara}): how test users
 * are added to its realm, and which tests it cannot run ({@link WildFlyOnly}). The tests themselves
 * are the same on both.
 */
public enum ItServer {

    /** Users with WildFly's add-user.sh into the application realm of {@code jboss.home}. */
    WILDFLY {
        @Override
        void addUser(String user, String password, String groups) throws IOException, InterruptedException {
            run(List.of(Path.of(System.getProperty("jboss.home")).resolve("bin/add-user.sh").toString(),
                    "-a", "-s", "-u", user, "-p", password, "-g", groups));
        }
    },
    /** Users with standalone-config/payara/add-user.sh into the key file the post-boot commands name. */
    PAYARA {
        @Override
        void addUser(String user, String password, String groups) throws IOException, InterruptedException {
            run(List.of("bash",
                    Path.of(System.getProperty("outbox.standalone-config", "../standalone-config"),
                            "payara/add-user.sh").toAbsolutePath().toString(),
                    "-f", System.getProperty("it.payara.keyfile"), "-u", user, "-p", password, "-g", groups));
        }
    };

    public static ItServer current() {
        return valueOf(System.getProperty("outbox.it.server", "wildfly").toUpperCase(java.util.Locale.ROOT));
    }

    abstract void addUser(String user, String password, String groups) throws IOException, InterruptedException;

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command.subList(0, 1)) + " failed: " + out);
        }
    }
}
