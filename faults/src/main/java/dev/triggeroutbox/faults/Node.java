package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Ports;
import dev.triggeroutbox.testkit.WildFlyProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One WildFly node of the cluster, a process of its own: its own server base directory (a copy of the
 * configured standalone directory), its own port offset and node name, the same WAR and database as the
 * others. The harness starts, kills ({@code SIGKILL}), pauses ({@code SIGSTOP}/{@code SIGCONT}), restarts
 * and redeploys it. Its console goes to {@code console.log} in its base directory.
 */
final class Node implements AutoCloseable {

    enum State {
        DOWN, STARTING, UP, PAUSED
    }

    static final String WAR = WildFlyProcess.WAR;

    final String name;
    final int httpPort;
    final int managementPort;
    private final int portOffset;
    private final Path jbossHome;
    private final Path base;
    private final List<String> properties;
    private final String dbUrl;
    private volatile State state = State.DOWN;
    private volatile Map<String, String> extraEnv = Map.of();
    private volatile int incarnation;
    private Process process;

    Node(String name, int portOffset, Path jbossHome, Path base, List<String> properties, String dbUrl) {
        this.name = name;
        this.portOffset = portOffset;
        this.httpPort = 8080 + portOffset;
        this.managementPort = 9990 + portOffset;
        this.jbossHome = jbossHome;
        this.base = base;
        this.properties = properties;
        this.dbUrl = dbUrl;
    }

    /** A fresh base directory: the configured server's configuration (with the harness's users) and the WAR. */
    void prepare(Path configuration, Path war) throws IOException {
        for (int port : new int[] {httpPort, managementPort}) {
            if (Ports.listening(port)) {
                throw new IllegalStateException("port " + port + " is in use: is an earlier fault run still running?"
                        + " (-Dfaults.port-offsets chooses others)");
            }
        }
        Files.deleteIfExists(base.resolve("console.log"));
        WildFlyProcess.prepareBase(base, configuration, war);
    }

    /** Environment added to the next start (and every later one), e.g. libfaketime's. */
    void environment(Map<String, String> env) {
        extraEnv = Map.copyOf(env);
    }

    synchronized void start() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is running");
        }
        // markers of the last run would make the scanner (and us) think the WAR is deployed already
        try (Stream<Path> files = Files.list(base.resolve("deployments"))) {
            for (Path f : files.filter(f -> !f.getFileName().toString().equals(WAR)).toList()) {
                Files.deleteIfExists(f);
            }
        }
        List<String> command = WildFlyProcess.command(jbossHome, base, portOffset);
        command.add("-Doutbox.node-name=" + name);
        command.addAll(properties);
        Map<String, String> env = new HashMap<>();
        // the node's name on its database sessions, so the harness can tell whose sessions are whose
        env.put("DB_URL", dbUrl + "?ApplicationName=" + name);
        env.put("DB_USER", Postgres.USER);
        env.put("DB_PASSWORD", Postgres.PASSWORD);
        env.putAll(extraEnv);
        state = State.STARTING;
        incarnation++;
        process = WildFlyProcess.start(command, base.resolve("console.log"), env);
    }

    /** Waits until the WAR answers ready (deployed, database reachable with its schema). */
    void awaitUp(Rest rest, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Process p = process;
            if (p == null || !p.isAlive()) {
                throw new IllegalStateException(name + " exited while starting; see " + console());
            }
            if (rest.ready(this)) {
                state = State.UP;
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(name + " was not ready within " + timeout.toSeconds() + " s; see " + console());
    }

    /** {@code kill -9} of the server's JVM and the script that started it, at once. */
    synchronized void kill() {
        if (process == null) {
            return;
        }
        List<ProcessHandle> all = Stream.concat(process.descendants(), Stream.of(process.toHandle())).toList();
        all.forEach(ProcessHandle::destroyForcibly);
        all.forEach(p -> p.onExit().join());
        state = State.DOWN;
    }

    /**
     * {@code SIGTERM} to the server's JVM, as a process manager stopping the node does (systemd, Kubernetes): the
     * server shuts down cleanly and undeploys the WAR. Waits at most {@code timeout} for the JVM to exit, then
     * kills it; whether it exited by itself. The load stops sending to it at once.
     */
    synchronized boolean terminate(Duration timeout) {
        if (process == null) {
            return true;
        }
        state = State.DOWN;
        List<ProcessHandle> jvm = process.descendants().toList();
        jvm.forEach(ProcessHandle::destroy);
        boolean exited = true;
        for (ProcessHandle p : jvm) {
            try {
                p.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                exited = false;
                p.destroyForcibly();
            }
        }
        process.destroyForcibly();
        process.onExit().join();
        process = null;
        return exited;
    }

    /** {@code SIGSTOP} to the server's JVM: it keeps its sockets and its database sessions, and does nothing. */
    synchronized void pause() throws IOException, InterruptedException {
        signal("-STOP");
        state = State.PAUSED;
    }

    synchronized void resume() throws IOException, InterruptedException {
        signal("-CONT");
        state = State.UP;
    }

    private void signal(String signal) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kill", signal));
        process.descendants().forEach(p -> command.add(Long.toString(p.pid())));
        if (command.size() == 2) {
            throw new IllegalStateException(name + " has no JVM to signal");
        }
        run(command, Duration.ofSeconds(10));
    }

    /** Redeploys the WAR through the management API (jboss-cli), as an operator rolling out a build would. */
    void redeploy() throws IOException, InterruptedException {
        run(List.of(jbossHome.resolve("bin/jboss-cli.sh").toString(),
                "--controller=remote+http://127.0.0.1:" + managementPort, "--connect", "--timeout=60000",
                "--command=/deployment=" + WAR + ":redeploy"), Duration.ofMinutes(3));
    }

    /** Whether the process died without the harness killing it (a handler halted the JVM). */
    synchronized boolean crashed() {
        return state != State.DOWN && process != null && !process.isAlive();
    }

    synchronized void markDown() {
        state = State.DOWN;
    }

    State state() {
        return state;
    }

    int incarnation() {
        return incarnation;
    }

    Path console() {
        return base.resolve("console.log");
    }

    /** Stops the server gracefully (SIGTERM; a paused one is continued first), forcibly after 30 s. Safe twice. */
    @Override
    public synchronized void close() {
        if (process == null) {
            return;
        }
        if (state == State.PAUSED) {
            process.descendants().forEach(p -> quietly("kill", "-CONT", Long.toString(p.pid())));
        }
        WildFlyProcess.stop(process, Duration.ofSeconds(30));
        process = null;
        state = State.DOWN;
    }

    private static void quietly(String... command) {
        try {
            run(List.of(command), Duration.ofSeconds(5));
        } catch (Exception e) {
            System.err.println(String.join(" ", command) + ": " + e.getMessage());
        }
    }

    static void run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(Path.of(command.get(0)).getFileName() + " failed: " + new String(out));
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
