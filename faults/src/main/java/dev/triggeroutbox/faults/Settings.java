package dev.triggeroutbox.faults;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * One run's sizes and the nodes' settings; {@code -Dfaults.*} system properties override them. The full run
 * ({@code -Dfaults.full=true}) has the sizes; the default is the short run, the same scenarios smaller.
 *
 * @param scenarios      which scenarios run (1–10)
 * @param steadyEvents   events of scenario 1
 * @param rate           events/s of the steady load under every fault
 * @param killSeconds    how long scenario 2 kills a node every 5 s
 * @param pgDownSeconds  how long PostgreSQL stays down in scenario 4
 * @param receiverDownSeconds how long scenario 6's receiver is down
 * @param baselineSeconds the baseline window of scenarios 6 and 9, and the warm-up before it (a node fresh from
 *                       boot is still compiling its hot paths)
 * @param burstRows      rows of scenario 9's slow app that come due at once; the short run keeps the 3,000:
 *                       fewer than the cluster's deliveries in flight (3 nodes × {@code outbox.dispatch.concurrency},
 *                       1,000) could not take every permit, so a smaller burst would test nothing
 * @param loadSeconds    how long the load runs around scenarios 3, 5, 7 and 8
 * @param leaseMillis    the nodes' lease; scenario 3 stops a node for twice this
 * @param pollMillis     the nodes' poll interval
 */
record Settings(
        boolean full,
        List<Integer> scenarios,
        int steadyEvents,
        int rate,
        int killSeconds,
        int pgDownSeconds,
        int receiverDownSeconds,
        int baselineSeconds,
        int burstRows,
        int loadSeconds,
        long leaseMillis,
        long pollMillis,
        int pgPort,
        int[] portOffsets,
        Path jbossHome,
        Path productWar,
        Path classes,
        Path target) {

    static final int KILL_EVERY_SECONDS = 5;

    static Settings fromSystemProperties() {
        boolean full = Boolean.getBoolean("faults.full");
        String all = String.join(",", IntStream.rangeClosed(1, Scenario.LAST).mapToObj(Integer::toString).toList());
        List<Integer> scenarios = List.copyOf(new TreeSet<>(Arrays.stream(
                System.getProperty("faults.scenarios", all).split("\\s*,\\s*"))
                .map(Integer::valueOf).toList()));
        if (scenarios.stream().anyMatch(n -> n < 1 || n > Scenario.LAST)) {
            throw new IllegalArgumentException(
                    "faults.scenarios: numbers 1.." + Scenario.LAST + ", e.g. -Dfaults.scenarios=1,2,3");
        }
        int[] offsets = Arrays.stream(System.getProperty("faults.port-offsets", "500,600,700").split("\\s*,\\s*"))
                .mapToInt(Integer::parseInt).toArray();
        if (offsets.length != 3) {
            throw new IllegalArgumentException("faults.port-offsets: three offsets, one per node");
        }
        return new Settings(full, scenarios,
                integer("faults.events", full ? 50_000 : 3_000),
                integer("faults.rate", 100),
                integer("faults.kill-seconds", full ? 120 : 30),
                integer("faults.pg-down-seconds", full ? 30 : 10),
                integer("faults.receiver-down-seconds", full ? 120 : 20),
                integer("faults.baseline-seconds", full ? 60 : 20),
                integer("faults.burst-rows", 3_000),
                integer("faults.load-seconds", full ? 60 : 20),
                integer("faults.lease-ms", 12_000),
                integer("faults.poll-ms", 250),
                integer("faults.pg.port", 55833),
                offsets,
                Path.of(System.getProperty("faults.jboss.home", "target/wildfly-39.0.1.Final")).toAbsolutePath(),
                Path.of(System.getProperty("faults.product.war", "target/trigger-outbox.war")).toAbsolutePath(),
                Path.of(System.getProperty("faults.classes", "faults/target/classes")).toAbsolutePath(),
                Path.of(System.getProperty("faults.target", "faults/target")).toAbsolutePath());
    }

    private static int integer(String key, int fallback) {
        return Integer.parseInt(System.getProperty(key, Integer.toString(fallback)));
    }

    /** The product settings every node runs with: short leases and polls, so faults heal in seconds. */
    List<String> nodeProperties() {
        List<String> properties = new java.util.ArrayList<>(List.of(
                "-Doutbox.dispatch.poll-interval-ms=" + pollMillis,
                "-Doutbox.dispatch.lease-ms=" + leaseMillis,
                "-Doutbox.delivery.timeout-ms=" + (leaseMillis * 3 / 4),
                "-Doutbox.webhook.timeout-ms=" + (leaseMillis * 2 / 3),
                "-Doutbox.webhook.connect-timeout-ms=2000",
                "-Doutbox.retry.backoff-base-ms=500",
                "-Doutbox.retry.backoff-cap-ms=" + Integer.getInteger("faults.backoff-cap-ms", 5_000),
                // 0 turns the webhook circuit breaker off (to compare scenario 6 with and without it)
                "-Doutbox.webhook.circuit-failures=" + Integer.getInteger("faults.circuit-failures", 5),
                "-Doutbox.webhook.allowed-hosts=127.0.0.1"));
        // more product settings for every node, e.g. -Dfaults.server-options="-Doutbox.dispatch.concurrency=1000"
        for (String option : System.getProperty("faults.server-options", "").trim().split("\\s+")) {
            if (!option.isEmpty()) {
                properties.add(option);
            }
        }
        return properties;
    }

    String mode() {
        return full ? "full" : "short";
    }
}
