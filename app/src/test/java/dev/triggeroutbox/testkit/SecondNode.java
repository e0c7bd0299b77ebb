package dev.triggeroutbox.testkit;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A second WildFly node for cluster tests: its own process and server base directory (under
 * {@code target/it-node-2}, configuration copied from the tested WildFly, so the same datasource
 * and test accounts), the product WAR in its deployment scanner, the same database and the short
 * intervals of arquillian.xml. Ports are Arquillian's plus 50.
 */
public final class SecondNode implements AutoCloseable {

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
        WildFlyProcess.deleteTree(base);
        Path configuration = WildFlyProcess.prepareBase(base, jbossHome.resolve("standalone/configuration"),
                Path.of(System.getProperty("outbox.it.war")));
        // without what Arquillian deployed on the first node: this node deploys from its scanner
        Path xml = configuration.resolve("standalone.xml");
        Files.writeString(xml, Files.readString(xml).replaceAll("(?s)<deployments>.*?</deployments>", ""));
        Files.deleteIfExists(configuration.resolve("logging.properties")); // it names the first node's log file
        List<String> command = WildFlyProcess.command(jbossHome, base, portOffset);
        command.addAll(List.of("-Doutbox.node-name=it-node-2", "-Doutbox.dispatch.poll-interval-ms=200",
                "-Doutbox.dispatch.lease-ms=3000", "-Doutbox.delivery.timeout-ms=1000", "-Doutbox.retry.max-attempts=3",
                "-Doutbox.retry.backoff-base-ms=50", "-Doutbox.retry.backoff-cap-ms=400",
                "-Doutbox.webhook.allowed-hosts=127.0.0.1", "-Doutbox.webhook.timeout-ms=800"));
        command.addAll(properties);
        process = WildFlyProcess.start(command, base.resolve("console.log"), Map.of());
        try {
            WildFlyProcess.awaitDeployed(base, process, Duration.ofMinutes(3));
        } catch (IllegalStateException | InterruptedException e) {
            close();
            throw e;
        }
    }

    /** Stops the node (SIGTERM to its JVM, forcibly after 30 s). */
    @Override
    public void close() {
        if (process == null) {
            return;
        }
        WildFlyProcess.stop(process, Duration.ofSeconds(30));
        process = null;
    }

}
