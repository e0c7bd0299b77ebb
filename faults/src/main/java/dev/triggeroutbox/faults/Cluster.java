package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Three WildFly nodes on one PostgreSQL, and a supervisor that restarts a node whose JVM died by itself (as
 * systemd or Kubernetes would), counting those deaths.
 */
final class Cluster implements AutoCloseable {

    static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    final List<Node> nodes = new ArrayList<>();
    private final Rest rest;
    private final AtomicInteger unexpectedDeaths = new AtomicInteger();
    private volatile boolean supervising = true;
    private final Thread supervisor;

    Cluster(Settings s, Postgres db, Rest rest, Path war) throws IOException, InterruptedException {
        this.rest = rest;
        Path root = s.target().resolve("nodes");
        Path configuration = configurationWithUsers(s.jbossHome(), root.resolve("configuration"), Scenario.allApps());
        for (int i = 0; i < 3; i++) {
            Node node = new Node("n" + (i + 1), s.portOffsets()[i], s.jbossHome(), root.resolve("n" + (i + 1)),
                    s.nodeProperties(), db.url());
            node.prepare(configuration, war);
            nodes.add(node);
        }
        supervisor = new Thread(this::supervise, "supervisor");
        supervisor.setDaemon(true);
    }

    /** The configured server's configuration plus the harness's two users, added with add-user.sh once. */
    private static Path configurationWithUsers(Path jbossHome, Path dir, List<UUID> apps)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        try (Stream<Path> files = Files.list(jbossHome.resolve("standalone/configuration"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, dir.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        String addUser = jbossHome.resolve("bin/add-user.sh").toString();
        Node.run(List.of(addUser, "-a", "-s", "-sc", dir.toString(), "-u", Rest.ADMIN, "-p", Rest.ADMIN_PASSWORD,
                "-g", "outbox-admin"), Duration.ofMinutes(1));
        StringBuilder groups = new StringBuilder("outbox-producer");
        apps.forEach(app -> groups.append(",app:").append(app));
        Node.run(List.of(addUser, "-a", "-s", "-sc", dir.toString(), "-u", Rest.PRODUCER, "-p", Rest.PRODUCER_PASSWORD,
                "-g", groups.toString()), Duration.ofMinutes(1));
        return dir;
    }

    /**
     * Starts the nodes one after the other, each once the previous one is ready: the first migrates the schema,
     * and three servers booting at once on two cores take longer than three in a row.
     */
    void start() throws Exception {
        for (Node n : nodes) {
            n.start();
            n.awaitUp(rest, START_TIMEOUT);
            Progress.say("%s is up", n);
        }
        supervisor.start();
    }

    /** Starts a node again (after a kill) and waits until it is ready. */
    void restart(Node node) throws Exception {
        node.start();
        node.awaitUp(rest, START_TIMEOUT);
    }

    /** Restarts in the background; the future ends when the node is ready. */
    CompletableFuture<Void> restartLater(Node node) {
        return CompletableFuture.runAsync(() -> {
            try {
                restart(node);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private void supervise() {
        while (supervising) {
            for (Node n : nodes) {
                if (n.crashed()) {
                    n.markDown();
                    unexpectedDeaths.incrementAndGet();
                    Progress.say("%s died by itself; restarting it", n);
                    restartLater(n).exceptionally(e -> {
                        Progress.say("restarting %s failed: %s", n, e.getMessage());
                        return null;
                    });
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** How many times a node's JVM died without the harness killing it. */
    int unexpectedDeaths() {
        return unexpectedDeaths.get();
    }

    /** The nodes that are up now (the load goes to these). */
    List<Node> up() {
        return nodes.stream().filter(n -> n.state() == Node.State.UP).toList();
    }

    Node randomUp() {
        List<Node> up = up();
        List<Node> from = up.isEmpty() ? nodes : up;
        return from.get(ThreadLocalRandom.current().nextInt(from.size()));
    }

    /** Any node that is up, for admin calls. */
    Node anyUp() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            List<Node> up = up();
            if (!up.isEmpty()) {
                return up.get(0);
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no node is up");
    }

    /** Waits until every node is up again (restarts in flight have finished). */
    void awaitAllUp(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (up().size() < nodes.size()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "nodes not up: " + nodes.stream().filter(n -> n.state() != Node.State.UP).toList());
            }
            Thread.sleep(100);
        }
    }

    @Override
    public void close() {
        supervising = false;
        supervisor.interrupt();
        nodes.parallelStream().forEach(Node::close);
    }
}
