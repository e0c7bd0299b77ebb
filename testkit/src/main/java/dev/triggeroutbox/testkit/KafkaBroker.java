package dev.triggeroutbox.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka broker for the tests and the benchmark: one KRaft node (broker and controller) in a JVM of its own,
 * started from the Kafka server jars (Maven Central) on a class path the caller names, with a log directory of
 * the caller's. Topics are not created on first use ({@code auto.create.topics.enable=false}): a test creates its
 * own, and a trigger naming a missing topic sees what a producer sees then. {@link #kill()} and
 * {@link #start()} stop it as a crash would and bring it back on the same data.
 */
public final class KafkaBroker implements AutoCloseable {

    private final int port;
    private final Path dir;
    private final Path properties;
    private final String classPath;
    private Process process;

    private KafkaBroker(int port, Path dir, String classPath) {
        this.port = port;
        this.dir = dir;
        this.properties = dir.resolve("server.properties");
        this.classPath = classPath;
    }

    /**
     * Empties {@code dir}, formats it as the broker's log directory and starts the broker on 127.0.0.1:{@code port}
     * (its controller on port + 1), in a JVM on {@code classPath}, which must hold the Kafka server jars.
     */
    public static KafkaBroker format(int port, Path dir, String classPath) {
        try {
            if (Files.exists(dir)) {
                try (var old = Files.walk(dir)) {
                    old.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
                }
            }
            Files.createDirectories(dir);
            KafkaBroker broker = new KafkaBroker(port, dir, classPath);
            broker.writeProperties();
            broker.run(List.of("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(),
                    "-c", broker.properties.toString()), true);
            broker.start();
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /**
     * Starts the broker on its data and waits until it answers (metadata and a controller), up to a minute. Refuses
     * to start when something already listens on its port (another run's broker would answer in its place); the
     * broker is stopped when this JVM exits, should the caller not close it.
     */
    public void start() {
        if (Ports.listening(port)) {
            throw new IllegalStateException(
                    "127.0.0.1:" + port + " is taken (a broker of another run?): choose another port");
        }
        process = run(List.of("kafka.Kafka", properties.toString()), false);
        Process started = process;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly, "kafka-broker-" + port + "-stop"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the Kafka broker exited: " + log());
            }
            if (Ports.listening(port)) {
                try (Admin admin = admin()) {
                    admin.describeCluster().controller().get(5, TimeUnit.SECONDS);
                    return;
                } catch (Exception notYet) {
                    // the listener is up before the broker has joined its controller
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Kafka broker did not answer within a minute: " + log());
            }
            pause(200);
        }
    }

    /** kill -9: what the brokers had not written is gone for them, as in a crash. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Ports.listening(port) && System.nanoTime() < deadline) {
            pause(50);
        }
    }

    public void createTopic(String name, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("topic " + name + " was not created", e);
        }
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                10_000));
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    private void writeProperties() throws IOException {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + (port + 1));
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + (port + 1));
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dir.resolve("data").toString());
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "3");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "3");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        try (var out = Files.newBufferedWriter(properties)) {
            p.store(out, "KafkaBroker (tests)");
        }
    }

    /** A JVM on the class path, its output in broker.log. */
    private Process run(List<String> mainAndArguments, boolean wait) {
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx384m", "-XX:+UseSerialGC", "-Dlog4j2.level=WARN", "-cp", classPath));
        command.addAll(mainAndArguments);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile())).start();
            if (wait && (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0)) {
                throw new IllegalStateException(mainAndArguments.get(0) + " failed: " + log());
            }
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The class path of a test run: surefire and failsafe name it in a property of their own (java.class.path may be a manifest jar). */
    public static String testClassPath() {
        String tests = System.getProperty("surefire.test.class.path");
        return tests != null && !tests.isBlank() ? tests : System.getProperty("java.class.path");
    }

    private String log() {
        try {
            String text = Files.readString(dir.resolve("broker.log"));
            return text.length() > 4_000 ? text.substring(text.length() - 4_000) : text;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** How long a test waits for what the broker should have by now. */
    public static final Duration WAIT = Duration.ofSeconds(60);
}
