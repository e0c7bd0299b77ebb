package dev.triggeroutbox.testkit;

import java.io.IOException;
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
 * A WildFly of the build's installation started as a process of its own, the way the second node of the cluster
 * tests, the benchmark's server and the fault harness's nodes start theirs: a server base directory of its own
 * (configuration copied, the WAR in the deployment scanner's directory), {@code standalone.sh} bound to the loopback
 * with a port offset, stopped by SIGTERM as an operator stops it. What each one adds (users, properties, pausing)
 * stays with it.
 */
public final class WildFlyProcess {

    /** The name the WAR is deployed under (the context root {@code /outbox} comes from the WAR itself). */
    public static final String WAR = "trigger-outbox.war";

    private WildFlyProcess() {
    }

    /**
     * Fills {@code base} with a copy of every file of {@code configuration} and the WAR in {@code deployments/}; returns
     * the base's configuration directory. What the base held before is kept (a restarted node keeps its data).
     */
    public static Path prepareBase(Path base, Path configuration, Path war) throws IOException {
        Path conf = Files.createDirectories(base.resolve("configuration"));
        try (Stream<Path> files = Files.list(configuration)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, conf.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path deployments = Files.createDirectories(base.resolve("deployments"));
        Files.copy(war, deployments.resolve(WAR), StandardCopyOption.REPLACE_EXISTING);
        return conf;
    }

    /** {@code standalone.sh} of {@code jbossHome} on {@code base}, bound to 127.0.0.1, ports shifted by the offset. */
    public static List<String> command(Path jbossHome, Path base, int portOffset) {
        return new ArrayList<>(List.of(jbossHome.resolve("bin/standalone.sh").toString(), "-b", "127.0.0.1",
                "-Djboss.server.base.dir=" + base, "-Djboss.socket.binding.port-offset=" + portOffset));
    }

    /**
     * Starts the command with its console appended to {@code console} and the given environment added;
     * {@code standalone.sh} runs the server in the background, so it passes a SIGTERM on to the JVM.
     */
    public static Process start(List<String> command, Path console, Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
        pb.environment().put("LAUNCH_JBOSS_IN_BACKGROUND", "true");
        pb.environment().putAll(env);
        return pb.start();
    }

    /** Waits until the deployment scanner marks the WAR deployed; fails at once when it failed or the server exited. */
    public static void awaitDeployed(Path base, Process process, Duration timeout) throws InterruptedException {
        Path deployments = base.resolve("deployments");
        // where the server wrote its console: its base directory's console.log, or the terminal it inherited
        Object console = Files.exists(base.resolve("console.log"))
                ? base.resolve("console.log")
                : "the server's output";
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(deployments.resolve(WAR + ".deployed"))) {
            if (Files.exists(deployments.resolve(WAR + ".failed"))) {
                throw new IllegalStateException("the deployment failed; see " + console);
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("WildFly exited with " + process.exitValue() + "; see " + console);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "WildFly did not deploy the WAR within " + timeout.toSeconds() + " s; see " + console);
            }
            Thread.sleep(200);
        }
    }

    /**
     * Sends SIGTERM to the process and every process it started, waits up to {@code grace} for each of them, then
     * kills what is left.
     */
    public static void stop(Process process, Duration grace) {
        List<ProcessHandle> children = process.descendants().toList();
        children.forEach(ProcessHandle::destroy);
        process.destroy();
        for (ProcessHandle p : children) {
            try {
                p.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        }
        process.destroyForcibly();
    }

    /** Deletes a directory and everything below it; nothing when it does not exist. */
    public static void deleteTree(Path dir) throws IOException {
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
