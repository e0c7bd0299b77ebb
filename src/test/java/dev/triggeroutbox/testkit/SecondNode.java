package dev.triggeroutbox.testkit;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A second WildFly node for cluster tests: its own process and server base directory (under
 * {@code target/it-node-2}, configuration copied from the tested WildFly, so the same datasource
 * and test accounts), the product WAR in its deployment scanner, the same database and the short
 * intervals of arquillian.xml. Ports are Arquillian's plus 50.
 */
public final class SecondNode implements AutoCloseable {

    private static final String WAR = "trigger-outbox.war";
    private static final int OFFSET_FROM_FIRST = 50;

    private final Path base;
    private final int portOffset;
    private Process process;

    private SecondNode(Path base, int portOffset) {
        this.base = base;
        this.portOffset = portOffset;
    }

    /**
     * Starts the node and waits until the WAR is deployed.
     *
     * @param properties extra system properties, e.g. {@code -Doutbox.dispatch.enabled=false}; they come after
     *                   the defaults, so one of the same name wins
     */
    public static SecondNode start(String... properties) throws IOException, InterruptedException {
        Path jbossHome = Path.of(System.getProperty("jboss.home"));
        int offset = Integer.getInteger("it.port.offset", 0) + OFFSET_FROM_FIRST;
        SecondNode node = new SecondNode(jbossHome.getParent().resolve("it-node-2"), offset);
        node.launch(jbossHome, List.of(properties));
        return node;
    }

    /** The WAR's URL on this node, like Arquillian's {@code @ArquillianResource URL}. */
    public URL url() {
        try {
            return new URL("http://127.0.0.1:" + (8080 + portOffset) + "/outbox/");
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the node has written to its console so far (its log at INFO and above). */
    public String log() throws IOException {
        return Files.readString(base.resolve("console.log"));
    }

    private void launch(Path jbossHome, List<String> properties) throws IOException, InterruptedException {
        deleteTree(base);
        Path configuration = Files.createDirectories(base.resolve("configuration"));
        try (Stream<Path> files = Files.list(jbossHome.resolve("standalone/configuration"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                if (name.equals("standalone.xml")) {
                    // without what Arquillian deployed on the first node: this node deploys from its scanner
                    String xml = Files.readString(f).replaceAll("(?s)<deployments>.*?</deployments>", "");
                    Files.writeString(configuration.resolve(name), xml);
                } else if (!name.equals("logging.properties")) { // it names the first node's log file
                    Files.copy(f, configuration.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        Path deployments = Files.createDirectories(base.resolve("deployments"));
        Files.copy(Path.of(System.getProperty("outbox.it.war")), deployments.resolve(WAR));
        List<String> command = new ArrayList<>(List.of(jbossHome.resolve("bin/standalone.sh").toString(),
                "-b", "127.0.0.1", "-Djboss.server.base.dir=" + base,
                "-Djboss.socket.binding.port-offset=" + portOffset,
                "-Doutbox.node-name=it-node-2", "-Doutbox.dispatch.poll-interval-ms=200",
                "-Doutbox.dispatch.lease-ms=3000",
                "-Doutbox.delivery.timeout-ms=1000", "-Doutbox.retry.max-attempts=3",
                "-Doutbox.retry.backoff-base-ms=50",
                "-Doutbox.retry.backoff-cap-ms=400", "-Doutbox.webhook.allowed-hosts=127.0.0.1",
                "-Doutbox.webhook.timeout-ms=800"));
        command.addAll(properties);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(base.resolve("console.log").toFile());
        pb.environment().put("LAUNCH_JBOSS_IN_BACKGROUND", "true");
        process = pb.start();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!Files.exists(deployments.resolve(WAR + ".deployed"))) {
            if (Files.exists(deployments.resolve(WAR + ".failed")) || !process.isAlive()
                    || System.nanoTime() > deadline) {
                close();
                throw new IllegalStateException(
                        "the second node did not deploy the WAR; see " + base.resolve("console.log"));
            }
            Thread.sleep(200);
        }
    }

    /** Stops the node (SIGTERM to its JVM, forcibly after 30 s). */
    @Override
    public void close() {
        if (process == null) {
            return;
        }
        List<ProcessHandle> jvm = process.descendants().toList();
        jvm.forEach(ProcessHandle::destroy);
        process.destroy();
        for (ProcessHandle p : jvm) {
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        }
        process.destroyForcibly();
        process = null;
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
