package dev.triggeroutbox.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one run measures and how long each part takes; system properties ({@code -Dbench.*}) override
 * the defaults. Quick mode ({@code -Dbench.quick=true}) keeps every part, smaller, for CI.
 *
 * @param drainRows         due rows each drain (a, b, c) delivers
 * @param warmupRows        rows each drain runs first, not measured (JIT, pools, caches)
 * @param drainKeys         ordering keys of the keyed drain (a'): its rows spread over this many lanes
 * @param concurrency       the dispatcher's delivery permits (deliveries in flight; the product default)
 * @param workerThreads     db-scheduler's worker threads
 * @param batchSize         the dispatcher's batch size, and the raw floor's and the claim timing's
 * @param pollMillis        the dispatcher's poll interval (and db-scheduler's)
 * @param clients           concurrent clients (HTTP, Java API threads, JDBC connections) when enqueueing
 * @param wrkConnections    wrk's connections for the REST publish measured with it
 * @param batchEvents       events per batch of the batch publish (REST {@code events:batch}, {@code Outbox.publishAll})
 * @param loads             offered loads of the latency part, events/s
 * @param latencyProducers  producer threads that offer a load
 * @param backlogLarge      due rows of the second claim timing (the first has {@code backlogSmall})
 * @param bloatHoldSeconds  how long the REPEATABLE READ snapshot is held
 * @param bloatWindowSeconds the baseline and after windows around it
 * @param webhookRows       due rows the webhook drain delivers to the nginx receiver
 * @param webhookRounds     times the webhook drain and the no-op drain are measured in turn (of the rounds after the
 *                          first, the one with the median ratio is reported)
 * @param kafkaRows         due rows the Kafka drain sends to the broker, and records Kafka's producer tool sends there
 * @param kafkaRounds       times the Kafka drain is measured after its warm-up (the last round is reported: the server's
 *                          JIT still compiles the Kafka path during the first)
 * @param clientConcurrency requests each HTTP client stack keeps in flight in part "clients"
 * @param clientSeconds     how long each stack (and wrk) is measured there, after {@code clientWarmupSeconds}
 * @param nginxWorkers      worker processes of the nginx receiver
 * @param clientStacks      the stacks part "clients" measures, in this order ({@code jdk}, {@code jetty}, {@code apache})
 * @param notifyRounds      rounds of part "notify", each the enqueue parts with {@code outbox.dispatch.notify} on and off
 */
record Settings(
        boolean quick,
        int drainRows,
        int warmupRows,
        int drainKeys,
        int concurrency,
        int workerThreads,
        int batchSize,
        int pollMillis,
        int clients,
        int wrkConnections,
        int batchEvents,
        int enqueueSeconds,
        int enqueueWarmupSeconds,
        List<Integer> loads,
        int loadSeconds,
        int latencyWarmupSeconds,
        int latencyProducers,
        int backlogSmall,
        int backlogLarge,
        int bloatWindowSeconds,
        int bloatHoldSeconds,
        int webhookRows,
        int webhookRounds,
        int kafkaRows,
        int kafkaRounds,
        int clientConcurrency,
        int clientSeconds,
        int clientWarmupSeconds,
        int nginxWorkers,
        List<String> clientStacks,
        int notifyRounds,
        int pgPort,
        Set<String> phases,
        Path jbossHome,
        Path productWar,
        Path classes,
        Path target,
        String dbSchedulerVersion) {

    static final List<String> ALL_PHASES = List.of("clients", "drain", "webhook", "kafka", "enqueue", "backlog",
            "bloat", "notify", "latency");

    static Settings fromSystemProperties() {
        boolean quick = Boolean.getBoolean("bench.quick");
        Path target = Path.of(System.getProperty("bench.target", "bench/target")).toAbsolutePath();
        Set<String> phases = new LinkedHashSet<>(Arrays.asList(
                System.getProperty("bench.phases", String.join(",", ALL_PHASES)).split("\\s*,\\s*")));
        if (!ALL_PHASES.containsAll(phases)) {
            throw new IllegalArgumentException("bench.phases: one or more of " + ALL_PHASES);
        }
        return new Settings(
                quick,
                integer("bench.rows", quick ? 10_000 : 100_000),
                integer("bench.warmup-rows", quick ? 2_000 : 10_000),
                integer("bench.drain-keys", 1_000),
                integer("bench.concurrency", 2000),
                integer("bench.worker-threads", 32),
                integer("bench.batch-size", 500),
                integer("bench.poll-ms", 100),
                integer("bench.clients", 8),
                integer("bench.wrk-connections", 16),
                integer("bench.batch-events", 1000),
                integer("bench.enqueue-seconds", quick ? 3 : 10),
                integer("bench.enqueue-warmup-seconds", quick ? 1 : 10),
                Arrays.stream(System.getProperty("bench.loads", "100,500,2000").split("\\s*,\\s*"))
                        .map(Integer::valueOf).toList(),
                integer("bench.load-seconds", quick ? 5 : 30),
                integer("bench.latency-warmup-seconds", quick ? 1 : 3),
                integer("bench.latency-producers", 4),
                integer("bench.backlog-small", 10_000),
                integer("bench.backlog-large", quick ? 100_000 : 1_000_000),
                integer("bench.bloat-window-seconds", quick ? 8 : 30),
                integer("bench.bloat-hold-seconds", quick ? 20 : 120),
                integer("bench.webhook-rows", quick ? 10_000 : 100_000),
                integer("bench.webhook-rounds", quick ? 1 : 4),
                integer("bench.kafka-rows", quick ? 10_000 : 100_000),
                integer("bench.kafka-rounds", quick ? 1 : 2),
                integer("bench.client-concurrency", 128),
                integer("bench.client-seconds", quick ? 3 : 10),
                integer("bench.client-warmup-seconds", quick ? 2 : 5),
                integer("bench.nginx-workers", 1),
                List.of(System.getProperty("bench.client-stacks", "jdk,jetty,apache").split("\\s*,\\s*")),
                integer("bench.notify-rounds", quick ? 1 : 2),
                integer("bench.pg.port", 55470),
                phases,
                Path.of(required("bench.jboss.home")),
                Path.of(required("bench.product.war")),
                Path.of(required("bench.classes")),
                target,
                System.getProperty("bench.db-scheduler.version", "?"));
    }

    boolean runs(String phase) {
        return phases.contains(phase);
    }

    String mode() {
        return quick ? "quick" : "full";
    }

    private static int integer(String key, int fallback) {
        return Integer.parseInt(System.getProperty(key, Integer.toString(fallback)).replace("_", ""));
    }

    private static String required(String key) {
        String v = System.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException(key + " is not set; run through bench/pom.xml (exec:java)");
        }
        return v;
    }
}
