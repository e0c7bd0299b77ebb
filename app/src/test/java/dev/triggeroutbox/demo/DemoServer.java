package dev.triggeroutbox.demo;

import dev.triggeroutbox.testkit.LocalPostgres;
import dev.triggeroutbox.testkit.WildFlyProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The quick start's first command ({@code ./mvnw -Pdemo package}): the WildFly the build configured,
 * the WAR deployed on it, an embedded PostgreSQL whose data stays in {@code .data/} between runs
 * (or your PostgreSQL, when DB_URL is set), and a webhook receiver on 127.0.0.1 that prints what it gets
 * ({@link DemoReceiver}). Prints where to go and how to sign in; Ctrl-C stops all.
 */
public final class DemoServer {

    static final String USER = "demo";
    static final String PASSWORD = "demo-Outbox-1";
    static final String APP_ID = "6f1c2a9e-0d3b-4c57-9e2a-1b7d5c3e8f40";
    private static final int PG_PORT = Integer.parseInt(System.getenv().getOrDefault("OUTBOX_DEMO_PG_PORT", "55432"));
    private static final int RECEIVER_PORT = Integer
            .parseInt(System.getenv().getOrDefault("OUTBOX_DEMO_RECEIVER_PORT", "8090"));

    private DemoServer() {
    }

    public static void main(String[] args) throws Exception {
        Path jbossHome = Path.of(System.getProperty("jboss.home"));
        Path war = Path.of(System.getProperty("outbox.war"));
        Path data = Path.of(System.getProperty("outbox.data", ".data"));

        String dbUrl = System.getenv("DB_URL");
        LocalPostgres postgres = null;
        if (dbUrl == null || dbUrl.isBlank()) {
            System.out.println("Starting the embedded PostgreSQL on port " + PG_PORT + " (data in "
                    + data.resolve("postgres") + ") ...");
            postgres = LocalPostgres.start(PG_PORT, data.resolve("postgres"), true);
            dbUrl = postgres.jdbcUrl();
        }

        // the demo's own server base directory, so the integration tests' server stays untouched
        Path base = Path.of(System.getProperty("outbox.demo.base", "target/demo-server")).toAbsolutePath();
        // the configured server's configuration and the WAR, refreshed on every start (the demo user is added after)
        Path configuration = WildFlyProcess.prepareBase(base, jbossHome.resolve("standalone/configuration"), war);
        addDemoUser(jbossHome, configuration);
        Path deployments = base.resolve("deployments");
        Files.deleteIfExists(deployments.resolve(WildFlyProcess.WAR + ".deployed"));
        Files.deleteIfExists(deployments.resolve(WildFlyProcess.WAR + ".failed"));

        DemoReceiver receiver = new DemoReceiver(RECEIVER_PORT);
        // its console on this terminal, so the server's log and the receiver's deliveries show together
        ProcessBuilder pb = new ProcessBuilder(WildFlyProcess.command(jbossHome, base, 0)).inheritIO();
        Map<String, String> env = pb.environment();
        env.put("LAUNCH_JBOSS_IN_BACKGROUND", "true"); // standalone.sh then passes SIGTERM on to the server
        env.put("DB_URL", dbUrl);
        env.putIfAbsent("DB_USER", "outbox");
        env.putIfAbsent("DB_PASSWORD", "outbox");
        // the demo receiver is on this machine: webhooks to loopback are refused unless allow-listed
        env.putIfAbsent("OUTBOX_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1");
        Process wildfly = pb.start();
        LocalPostgres pg = postgres;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(wildfly, pg), "demo-shutdown"));

        WildFlyProcess.awaitDeployed(base, wildfly, Duration.ofMinutes(3));
        System.out.println("""

                ================================================================
                 Trigger Outbox is running
                   REST API   http://127.0.0.1:8080/outbox/api/v1
                   console    http://127.0.0.1:8080/outbox/
                   sign in    %s / %s  (roles outbox-admin, outbox-producer)
                   demo app   %s
                   receiver   %s  (prints each delivery here)
                   database   %s
                 Ctrl-C stops the server%s.
                ================================================================
                """.formatted(USER, PASSWORD, APP_ID, receiver.url(), dbUrl,
                pg == null ? "" : " and the embedded PostgreSQL"));
        wildfly.waitFor();
    }

    private static void addDemoUser(Path jbossHome, Path configuration) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(jbossHome.resolve("bin/add-user.sh").toString(), "-a", "-s",
                "-sc", configuration.toString(),
                "-u", USER, "-p", PASSWORD, "-g", "outbox-admin,outbox-producer,app:" + APP_ID)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException("add-user.sh failed: " + out);
        }
    }

    private static void stop(Process wildfly, LocalPostgres postgres) {
        System.out.println("Stopping WildFly ...");
        try {
            // SIGTERM to the server JVM itself (not only to standalone.sh): it shuts down gracefully
            List<ProcessHandle> server = wildfly.descendants().toList();
            server.forEach(ProcessHandle::destroy);
            wildfly.destroy();
            for (ProcessHandle p : server) {
                p.onExit().get(60, TimeUnit.SECONDS);
            }
            wildfly.waitFor(10, TimeUnit.SECONDS);
            if (postgres != null) {
                System.out.println("Stopping PostgreSQL ...");
                postgres.close();
            }
        } catch (Exception e) {
            System.err.println("shutdown: " + e);
        }
    }
}
