package dev.triggeroutbox.targets;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.Traces.assertContext;
import static dev.triggeroutbox.testkit.Traces.assertUntraced;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.KafkaBroker;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Kafka targets end to end: a real broker (KRaft, {@link KafkaBroker}) that the test starts and kills, the server
 * configured with {@code outbox.kafka.bootstrap-servers} (pom.xml, it.outbox.settings), and a consumer that
 * counts what arrived on each topic, by the outbox id in each record's headers. Calls go through the typed client,
 * as a Java caller's would; the malformed registrations are raw requests.
 */
@ExtendWith(ArquillianExtension.class)
class KafkaIT {

    private static final Duration WAIT = KafkaBroker.WAIT;
    private static KafkaBroker broker;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private OutboxClient client;
    private final UUID app = UUID.randomUUID();
    private final String topic = "orders-" + UUID.randomUUID();

    @BeforeAll
    static void startBroker() {
        int port = Integer.getInteger("it.kafka.port", 19092);
        broker = KafkaBroker.format(port,
                Path.of(System.getProperty("outbox.target", "../target"), "kafka-" + port).toAbsolutePath(),
                KafkaBroker.testClassPath());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    @BeforeEach
    void open() {
        api = new Api(base);
        client = ItClients.client(base, ADMIN);
    }

    @AfterEach
    void close() {
        client.close();
        api.close();
    }

    /** A kafka trigger of this test's app for kv events; a high attempt limit, so that a slow first metadata fetch spends no row. */
    private UUID trigger(String toTopic, String key, int maxAttempts) {
        return client
                .createTrigger(app, TriggerDefinition.kafka("kv", toTopic, key).maxAttempts(maxAttempts), Call.plain())
                .id();
    }

    private static Event event(String key, int i) {
        return Event.of("kv", Json.createObjectBuilder().add("i", i).build()).orderingKey(key);
    }

    private List<UUID> publish(int from, int count, Call call) {
        List<Event> events = IntStream.range(from, from + count).mapToObj(i -> event(null, i)).toList();
        return client.publishAll(app, events, call).stream().map(OutboxClient.Written::id).toList();
    }

    private OutboxClient.RowStatus row(UUID id) {
        return client.status(id);
    }

    @Test
    void everyCommittedRowArrivesOnceWithWhereItCameFrom() {
        broker.createTopic(topic, 3);
        UUID trigger = trigger(topic, "appId", 100);
        String traceparent = "00-" + UUID.randomUUID().toString().replace("-", "") + "-" + "00f067aa0ba902b7" + "-01";
        List<UUID> ids = new ArrayList<>(publish(0, 100, Call.plain().traced(traceparent, null)));
        ids.addAll(publish(100, 100, Call.plain()));
        // a refused batch writes nothing, so nothing of it reaches the topic
        assertRefused(400, "validation", () -> client.publishAll(app,
                List.of(event(null, 999), Event.of("nope", JsonValue.EMPTY_JSON_OBJECT)), Call.plain()));
        ids.addAll(publish(200, 100, Call.plain()));

        try (Topic read = new Topic(topic)) {
            List<ConsumerRecord<String, String>> got = read.until(
                    records -> records.stream().map(r -> header(r, "outbox-id")).distinct().count() >= 300);
            Map<String, Long> perId = got.stream()
                    .collect(Collectors.groupingBy(r -> header(r, "outbox-id"), Collectors.counting()));
            assertEquals(ids.stream().map(UUID::toString).collect(Collectors.toSet()), perId.keySet(),
                    "the committed rows, each of them");
            // exactly once unless an attempt ended without the broker's acknowledgement in time (the tests' delivery
            // timeout is 1 s): then the row's next attempt sends it again, so each copy of a row is another attempt's
            Map<String, List<String>> attempts = got.stream().collect(Collectors.groupingBy(r -> header(r, "outbox-id"),
                    Collectors.mapping(r -> header(r, "outbox-attempt"), Collectors.toList())));
            attempts.forEach((id, of) -> assertEquals(of.size(), new HashSet<>(of).size(),
                    "row " + id + " sent twice by one attempt (attempts " + of + ")"));
            Set<Integer> values = new HashSet<>();
            Set<Integer> partitions = new HashSet<>();
            for (ConsumerRecord<String, String> r : got) {
                assertEquals(app.toString(), r.key(), "keyed by app");
                partitions.add(r.partition());
                assertEquals(app.toString(), header(r, "outbox-app-id"));
                assertEquals("kv", header(r, "outbox-source-kind"));
                assertEquals(trigger.toString(), header(r, "outbox-trigger-id"));
                assertNotNull(header(r, "outbox-attempt"));
                assertEquals("0", header(r, "outbox-trigger-depth"));
                values.add(Integer.parseInt(r.value().replaceAll("\\D", "")));
                boolean traced = Integer.parseInt(r.value().replaceAll("\\D", "")) < 100;
                if (traced) {
                    assertContext(traceparent, header(r, "traceparent"), r.value());
                } else {
                    assertUntraced(header(r, "traceparent"), traceparent, r.value());
                }
            }
            assertEquals(IntStream.range(0, 300).boxed().collect(Collectors.toSet()), values,
                    "every payload as it was sent");
            assertEquals(1, partitions.size(), "one key, one partition: " + partitions);
        }
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app) == 0,
                () -> "rows left in the outbox");
        assertEquals("delivered", row(ids.get(0)).status());
    }

    @Test
    void anInvokeAnswersWhereTheBrokerPutTheRecord() {
        broker.createTopic(topic, 2);
        OutboxClient.Trigger trigger = client.createTrigger(app,
                TriggerDefinition.kafka("kv", topic, null).maxAttempts(100),
                Call.plain());
        assertEquals("rowId", trigger.json().getJsonObject("target").getString("key"), trigger.json().toString());
        OutboxClient.Invoked r = client.invoke(app, trigger.id(), Json.createObjectBuilder().add("order", 42).build(),
                Duration.ofSeconds(20), Call.plain());
        assertTrue(r.answered(), r.toString());
        JsonObject where = Json.createReader(new StringReader(r.body())).readObject();
        assertEquals(topic, where.getString("topic"));
        try (Topic read = new Topic(topic)) {
            ConsumerRecord<String, String> got = read.until(records -> !records.isEmpty()).get(0);
            assertEquals(where.getInt("partition"), got.partition());
            assertEquals(where.getJsonNumber("offset").longValue(), got.offset());
            assertEquals(42, Json.createReader(new StringReader(got.value())).readObject().getInt("order"),
                    got.value());
            assertEquals(header(got, "outbox-id"), got.key(), "keyed by row id, the default");
        }
    }

    @Test
    void aBrokerThatIsDownFailsAttemptsAndLosesNothing() {
        broker.createTopic(topic, 3);
        trigger(topic, "rowId", 1000);
        List<UUID> before = publish(0, 20, Call.plain());
        try (Topic read = new Topic(topic)) {
            read.until(records -> records.size() >= 20);
        }
        broker.kill();
        List<UUID> during = publish(20, 50, Call.plain());
        Eventually.until(WAIT, () -> row(during.get(0)).attemptCount() >= 2,
                () -> row(during.get(0)).json().toString());
        String error = String.valueOf(row(during.get(0)).lastError());
        assertTrue(error.contains("Kafka") || error.contains("timed out"), error);
        broker.start();
        try (Topic read = new Topic(topic)) {
            Set<String> expected = new HashSet<>();
            before.forEach(id -> expected.add(id.toString()));
            during.forEach(id -> expected.add(id.toString()));
            List<ConsumerRecord<String, String>> got = read.until(records -> records.stream()
                    .map(r -> header(r, "outbox-id")).collect(Collectors.toSet()).containsAll(expected));
            System.out.printf("KafkaIT: broker down and back: %d rows, %d records%n", expected.size(), got.size());
            assertEquals(expected, got.stream().map(r -> header(r, "outbox-id")).collect(Collectors.toSet()));
        }
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app) == 0,
                () -> "rows left in the outbox");
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app));
    }

    @Test
    void aMissingTopicSpendsItsOwnAttemptsAndHoldsUpNoOtherTopic() {
        broker.createTopic(topic, 1);
        UUID other = UUID.randomUUID();
        client.createTrigger(other, TriggerDefinition.kafka("kv", topic, null).maxAttempts(100), Call.plain());
        try (Topic read = new Topic(topic)) {
            // the other app's topic first, once: the producer knows it before the missing topic's rows come
            client.publish(other, Event.of("kv", Json.createObjectBuilder().add("other", 1).build()));
            read.until(records -> records.size() >= 1);

            String missing = "missing-" + UUID.randomUUID();
            trigger(missing, null, 2);
            List<UUID> lost = publish(0, 30, Call.plain());
            long start = System.nanoTime();
            client.publish(other, Event.of("kv", Json.createObjectBuilder().add("other", 2).build()));
            read.until(records -> records.size() >= 2);
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("KafkaIT: beside 30 rows for a missing topic, another app's record arrived in %d ms%n",
                    millis);
            // each of the 30 would wait max.block.ms (500 ms here) for the missing topic's metadata, in turn, if the
            // topic's first timeout did not fail the others at once: 15 s before the other app's record
            assertTrue(millis < 10_000, millis + " ms");
            for (UUID id : lost) {
                Eventually.until(WAIT, () -> "dead".equals(row(id).status()), () -> row(id).json().toString());
            }
            String error = String.valueOf(row(lost.get(0)).lastError());
            assertTrue(error.contains(missing), error);
        }
    }

    /** By hand: targets that are malformed, most of them more or other than the client's definitions send. */
    @Test
    void registrationRefusesWhatCannotWork() {
        Api.Reply badTopic = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"kafka\",\"topic\":\"no spaces!\"}}");
        assertEquals(400, badTopic.status(), badTopic.toString());
        assertTrue(badTopic.isProblem() && badTopic.body().contains("target.topic"), badTopic.toString());
        Api.Reply badKey = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"kafka\",\"topic\":\"t\",\"key\":\"partition\"}}");
        assertEquals(400, badKey.status(), badKey.toString());
        assertTrue(badKey.body().contains("orderingKey, rowId, appId"), badKey.toString());
        Api.Reply keyOnWebhook = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"http://127.0.0.1:9/x\",\"key\":\"rowId\"}}");
        assertEquals(400, keyOnWebhook.status(), keyOnWebhook.toString());
        Api.Reply urlOnKafka = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"kafka\",\"topic\":\"t\",\"url\":\"http://127.0.0.1:9/x\"}}");
        assertEquals(400, urlOnKafka.status(), urlOnKafka.toString());
        Api.Reply noTopic = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"kafka\"}}");
        assertEquals(400, noTopic.status(), noTopic.toString());
        for (String name : List.of(".", "..", "a".repeat(250), "ä")) {
            Api.Reply refused = api.post(ADMIN, "apps/" + app + "/triggers",
                    "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"kafka\",\"topic\":\"" + name + "\"}}");
            assertEquals(400, refused.status(), name + ": " + refused);
        }
        Api.Reply keyOnJms = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"jms\",\"destination\":\"java:/jms/queue/x\",\"key\":\"appId\"}}");
        assertEquals(400, keyOnJms.status(), keyOnJms.toString());
        assertEquals(0, ItDatabase.everythingOf(app));
    }

    @Test
    void aTriggerReplacedByAnotherTypeKeepsNoRecordKeyAndBackAgain() {
        UUID id = trigger("t-" + UUID.randomUUID(), "appId", 5);
        JsonObject webhook = client
                .replaceTrigger(app, id, TriggerDefinition.webhook("kv", URI.create("http://127.0.0.1:9/x"))).json();
        assertTrue(!webhook.getJsonObject("target").containsKey("key"), webhook.toString());
        assertNull(ItDatabase.text("SELECT target_key FROM triggers WHERE id = ?", id));
        JsonObject kafka = client.replaceTrigger(app, id, TriggerDefinition.kafka("kv", "back", null)).json();
        assertEquals("rowId", kafka.getJsonObject("target").getString("key"), "the default again: " + kafka);
    }

    @Test
    void aLanesRecordsReachOnePartitionInLaneOrder() {
        broker.createTopic(topic, 3);
        trigger(topic, "orderingKey", 100);
        int keys = 5;
        int perKey = 20;
        // interleaved across keys, half in one batch, half one by one
        client.publishAll(app,
                IntStream.range(0, keys * perKey / 2).mapToObj(n -> event("key-" + n % keys, n / keys)).toList(),
                Call.plain());
        for (int n = keys * perKey / 2; n < keys * perKey; n++) {
            client.publish(app, event("key-" + n % keys, n / keys));
        }
        try (Topic read = new Topic(topic)) {
            List<ConsumerRecord<String, String>> got = read.until(records -> records.size() >= keys * perKey);
            assertEquals(keys * perKey, got.size(), "no record twice");
            Map<String, List<ConsumerRecord<String, String>>> byKey = got.stream()
                    .collect(Collectors.groupingBy(ConsumerRecord::key));
            assertEquals(keys, byKey.size(), byKey.keySet().toString());
            byKey.forEach((key, records) -> {
                assertEquals(1, records.stream().map(ConsumerRecord::partition).distinct().count(),
                        key + ": one partition");
                List<Integer> order = records.stream()
                        .sorted(java.util.Comparator.comparingLong(ConsumerRecord::offset))
                        .map(r -> Integer.parseInt(r.value().replaceAll("\\D", ""))).toList();
                assertEquals(IntStream.range(0, perKey).boxed().toList(), order, key + " in its lane's order");
            });
        }
    }

    private static String header(ConsumerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** Reads a topic from its start, every partition. */
    private static final class Topic implements AutoCloseable {
        private final KafkaConsumer<String, String> consumer;
        private final List<ConsumerRecord<String, String>> records = new ArrayList<>();

        Topic(String name) {
            Map<String, Object> c = new HashMap<>();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
            List<TopicPartition> partitions = consumer.partitionsFor(name, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(name, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        List<ConsumerRecord<String, String>> until(Predicate<List<ConsumerRecord<String, String>>> enough) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!enough.test(records)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("not within " + WAIT + ": " + records.size() + " records");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            // anything more that is there (a duplicate would be)
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            return records;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
