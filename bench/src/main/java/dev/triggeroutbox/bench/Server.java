package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Ports;
import dev.triggeroutbox.testkit.Progress;
import dev.triggeroutbox.testkit.WildFlyProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The WildFly the build configured, started as the demo starts it but with a server base directory
 * of its own under bench/target and a port offset (HTTP 8380, management 10290), so that it never
 * meets another server on this machine. Its console goes to {@code server/console.log}.
 */
final class Server implements AutoCloseable {

    static final int PORT_OFFSET = Integer.getInteger("bench.port-offset", 300);
    static final int HTTP_PORT = 8080 + PORT_OFFSET;
    static final int MANAGEMENT_PORT = 9990 + PORT_OFFSET;
    static final String USER = "bench";
    static final String PASSWORD = "Bench-Outbox-1";
    static final String WAR = WildFlyProcess.WAR;

    private final Path jbossHome;
    private final Path base;
    private final List<String> properties;
    private Process process;

    Server(Path jbossHome, Path base, List<String> properties) {
        this.jbossHome = jbossHome;
        this.base = base;
        this.properties = properties;
    }

    /** Prepares the base directory (fresh configuration, the bench user, the WAR) and starts the server. */
    void start(Path war, Database db) throws IOException, InterruptedException {
        for (int port : new int[] {HTTP_PORT, MANAGEMENT_PORT}) {
            if (Ports.listening(port)) {
                throw new IllegalStateException(
                        "port " + port + " is in use: is an earlier benchmark server still running?");
            }
        }
        WildFlyProcess.deleteTree(base);
        Path configuration = WildFlyProcess.prepareBase(base, jbossHome.resolve("standalone/configuration"), war);
        run(List.of(jbossHome.resolve("bin/add-user.sh").toString(), "-a", "-s", "-sc", configuration.toString(),
                "-u", USER, "-p", PASSWORD, "-g", "outbox-admin"), Duration.ofMinutes(1));
        List<String> command = WildFlyProcess.command(jbossHome, base, PORT_OFFSET);
        command.addAll(properties);
        process = WildFlyProcess.start(command, base.resolve("console.log"),
                Map.of("DB_URL", db.url, "DB_USER", db.user, "DB_PASSWORD", db.password));
        WildFlyProcess.awaitDeployed(base, process, Duration.ofMinutes(3));
    }

    /**
     * Sets system properties on the running server (replacing earlier values) and redeploys the WAR, so
     * MicroProfile Config reads them.
     */
    void redeployWith(Map<String, String> properties) throws IOException, InterruptedException {
        StringBuilder commands = new StringBuilder();
        for (Map.Entry<String, String> p : properties.entrySet()) {
            // the CLI stops at the first failure: a property not set before fails its remove, so each is tried alone
            try {
                run(List.of(jbossHome.resolve("bin/jboss-cli.sh").toString(), "--controller=remote+http://127.0.0.1:"
                        + MANAGEMENT_PORT, "--connect", "--commands=/system-property=" + p.getKey() + ":remove"),
                        Duration.ofMinutes(1));
            } catch (IllegalStateException notSet) {
                // nothing to replace
            }
            commands.append("/system-property=").append(p.getKey()).append(":add(value=").append(p.getValue())
                    .append("),");
        }
        run(List.of(jbossHome.resolve("bin/jboss-cli.sh").toString(),
                "--controller=remote+http://127.0.0.1:" + MANAGEMENT_PORT, "--connect",
                "--commands=" + commands + "/deployment=" + WAR + ":redeploy"),
                Duration.ofMinutes(3));
    }

    String logFile() {
        return base.resolve("log/server.log").toString();
    }

    private void run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(Path.of(command.get(0)).getFileName() + " failed: " + new String(out));
        }
    }

    /** CPU time the server's JVM has used so far (user and system), from the operating system's accounting. */
    long cpuNanos() {
        return process.descendants().mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L))
                .sum();
    }

    /** The server JVM's processes (for {@link CpuMeter}, which splits their time into user and kernel). */
    java.util.stream.Stream<ProcessHandle> processes() {
        return process.descendants();
    }

    /** Stops the server gracefully (SIGTERM to its JVM), forcibly after a minute. Safe to call twice. */
    @Override
    public synchronized void close() {
        if (process == null) {
            return;
        }
        Progress.say("stopping WildFly");
        WildFlyProcess.stop(process, Duration.ofSeconds(60));
        process = null;
    }

    /** Waits up to {@code seconds} for a process to end, then kills it. */
    static void awaitExit(Process p, int seconds) {
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

}
