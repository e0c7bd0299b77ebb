package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.KafkaBroker;
import dev.triggeroutbox.testkit.Progress;
import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Part "kafka": N rows already due for a kafka trigger, sent by the WAR to a topic of one KRaft broker the
 * harness starts; beside it, in the same run, Kafka's own producer performance tool sending as many records of
 * the payload's size to another topic of that broker, with the producer settings the WAR uses. The broker's end
 * offsets are checked against the rows delivered (every row one record, at least).
 */
final class KafkaPhase {

    static final int PORT = 19192;
    static final String BOOTSTRAP = "127.0.0.1:" + PORT;
    /** An app of its own, so that events the other parts publish for the bench app never reach the topic. */
    static final UUID APP = UUID.fromString("be4c0000-0000-4000-8000-00000000ca1a");
    private static final String TOPIC = "bench-drain";
    private static final String TOOL_TOPIC = "bench-tool";
    private static final int PARTITIONS = 3;
    private static final int RECORD_BYTES = SignedPosts.payload(0).length();

    private KafkaPhase() {
    }

    static Results.Kafka run(Bench bench) throws Exception {
        Settings s = bench.settings();
        Progress.say(
                "[kafka] drain: %,d due rows to a Kafka topic (%d partitions, one KRaft broker on %s) through the WAR, "
                        + "beside Kafka's producer performance tool; warm-up %,d rows first",
                s.kafkaRows(), PARTITIONS, BOOTSTRAP, s.warmupRows());
        String classPath = classPath();
        try (KafkaBroker broker = KafkaBroker.format(PORT, s.target().resolve("kafka"), classPath)) {
            broker.createTopic(TOPIC, PARTITIONS);
            broker.createTopic(TOOL_TOPIC, PARTITIONS);
            UUID trigger = bench.api().createKafkaTrigger(APP, TOPIC);
            OutboxTables rows = new OutboxTables(bench.db(), APP, trigger);
            String label = "Trigger Outbox Kafka drain (WildFly → Kafka)";
            DrainPhase.dispatcher(bench, rows, s.warmupRows(), SignedPosts.PAD, label);
            CpuMeter.Sample[] cpu = new CpuMeter.Sample[2];
            long serverNanos = 0;
            Results.Throughput drain = null;
            for (int round = 1; round <= s.kafkaRounds(); round++) {
                drain = DrainPhase.dispatcher(bench, rows, s.kafkaRows(), SignedPosts.PAD, label, cpu);
                serverNanos = cpu[1].nanos().get("server") - cpu[0].nanos().get("server");
                Progress.say("  round %d: %,.0f rows/s (%s)", round, drain.perSecond(),
                        CpuMeter.describe(cpu[1].microsPerRow(cpu[0], drain.count())));
            }
            bench.api().deleteTrigger(APP, trigger);
            long records = records(broker, TOPIC);
            long sent = (long) s.warmupRows() + (long) s.kafkaRows() * s.kafkaRounds();
            if (records < sent) {
                throw new IllegalStateException(
                        "the topic has " + records + " records for " + sent + " rows delivered");
            }
            double micros = serverNanos / 1e3 / drain.count();
            long finishes = rows.finishingTransactions();
            Progress.say(
                    "  Kafka drain: %,d rows in %.2f s = %,.0f rows/s (server CPU %.1f µs/row, %,d finishing transactions of "
                            + "%.1f rows); %,d records on the topic for %,d rows",
                    drain.count(), drain.seconds(), drain.perSecond(), micros,
                    finishes, drain.count() / (double) finishes, records, sent);

            tool(classPath, Math.max(1, s.kafkaRows() / 10));
            Results.Throughput tool = tool(classPath, s.kafkaRows());
            Results.Kafka k = new Results.Kafka(s.kafkaRows(), drain, micros, tool);
            Progress.say("  Kafka's producer tool: %,.0f records/s; drain / tool = %.2f", tool.perSecond(), k.toTool());
            return k;
        }
    }

    /** Records on a topic: the sum of its partitions' end offsets. */
    private static long records(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(o -> o.offset()).sum();
        }
    }

    /** Final line of ProducerPerformance: "100000 records sent, 45123.4 records/sec (8.61 MB/sec), …". */
    private static final Pattern SUMMARY = Pattern.compile("(\\d+) records sent, ([\\d.]+) records/sec");

    /** Kafka's ProducerPerformance in a JVM of its own: {@code count} records as fast as the broker takes them. */
    private static Results.Throughput tool(String classPath, int count) throws Exception {
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx512m", "-cp", classPath, "org.apache.kafka.tools.ProducerPerformance",
                        "--topic", TOOL_TOPIC, "--num-records", Integer.toString(count), "--record-size",
                        Integer.toString(RECORD_BYTES),
                        "--throughput", "-1", "--producer-props", "bootstrap.servers=" + BOOTSTRAP, "acks=all",
                        "enable.idempotence=true", "linger.ms=5"));
        Path log = Files.createTempFile("producer-performance", ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(5, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly();
        }
        List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
        Files.delete(log);
        if (!ended || p.exitValue() != 0) {
            throw new IllegalStateException("ProducerPerformance " + (ended ? "failed" : "took over 5 minutes") + ": "
                    + String.join("\n", output));
        }
        for (int i = output.size() - 1; i >= 0; i--) {
            Matcher m = SUMMARY.matcher(output.get(i));
            if (m.find()) {
                long sent = Long.parseLong(m.group(1));
                double perSecond = Double.parseDouble(m.group(2));
                if (sent != count) {
                    throw new IllegalStateException("ProducerPerformance sent " + sent + " of " + count + " records");
                }
                return new Results.Throughput(
                        "Kafka ProducerPerformance (" + RECORD_BYTES + "-byte records, acks=all, idempotent)",
                        sent, sent / perSecond);
            }
        }
        throw new IllegalStateException("ProducerPerformance printed no summary: " + String.join("\n", output));
    }

    /** The harness's class path (exec:java runs it in Maven's JVM, on a class loader of its own), with the Kafka jars. */
    private static String classPath() throws URISyntaxException {
        if (KafkaPhase.class.getClassLoader() instanceof URLClassLoader loader) {
            List<String> entries = new ArrayList<>();
            for (URL url : loader.getURLs()) {
                entries.add(Path.of(url.toURI()).toString());
            }
            return String.join(File.pathSeparator, entries);
        }
        return System.getProperty("java.class.path");
    }
}
