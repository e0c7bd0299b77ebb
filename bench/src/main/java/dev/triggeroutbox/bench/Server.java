package dev.triggeroutbox.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
    static final String WAR = "trigger-outbox.war";

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
            if (listening(port)) {
                throw new IllegalStateException(
                        "port " + port + " is in use: is an earlier benchmark server still running?");
            }
        }
        deleteTree(base);
        Path configuration = Files.createDirectories(base.resolve("configuration"));
        try (Stream<Path> files = Files.list(jbossHome.resolve("standalone/configuration"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, configuration.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        run(List.of(jbossHome.resolve("bin/add-user.sh").toString(), "-a", "-s", "-sc", configuration.toString(),
                "-u", USER, "-p", PASSWORD, "-g", "outbox-admin"), Duration.ofMinutes(1));
        Path deployments = Files.createDirectories(base.resolve("deployments"));
        Files.copy(war, deployments.resolve(WAR), StandardCopyOption.REPLACE_EXISTING);

        List<String> command = new ArrayList<>(List.of(jbossHome.resolve("bin/standalone.sh").toString(),
                "-b", "127.0.0.1", "-Djboss.server.base.dir=" + base,
                "-Djboss.socket.binding.port-offset=" + PORT_OFFSET));
        command.addAll(properties);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(base.resolve("console.log").toFile());
        Map<String, String> env = pb.environment();
        env.put("LAUNCH_JBOSS_IN_BACKGROUND", "true"); // standalone.sh then passes SIGTERM on to the server
        env.put("DB_URL", db.url);
        env.put("DB_USER", db.user);
        env.put("DB_PASSWORD", db.password);
        process = pb.start();
        awaitDeployment(deployments);
    }

    private void awaitDeployment(Path deployments) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(deployments.resolve(WAR + ".deployed"))) {
                return;
            }
            if (Files.exists(deployments.resolve(WAR + ".failed"))) {
                throw new IllegalStateException("the deployment failed; see " + base.resolve("console.log"));
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "WildFly exited with " + process.exitValue() + "; see " + base.resolve("console.log"));
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                "WildFly did not deploy the WAR within 3 minutes; see " + base.resolve("console.log"));
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
        List<ProcessHandle> jvm = process.descendants().toList();
        jvm.forEach(ProcessHandle::destroy);
        process.destroy();
        for (ProcessHandle p : jvm) {
            try {
                p.onExit().get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        }
        awaitExit(process, 10);
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

    static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
