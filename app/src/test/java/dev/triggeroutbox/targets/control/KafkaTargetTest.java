package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class KafkaTargetTest {

    private static ClaimedRow row(String key, TraceContext trace) {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return new ClaimedRow(new OutboxId(UUID.randomUUID()), new AppId(UUID.randomUUID()), "kv",
                new TriggerId(UUID.randomUUID()),
                null, null, "{\"a\": 1}", "p", 2, null, 3, null, now, now,
                new ClaimedRow.TriggerTarget("kafka", "orders", null, null, null, null, key), trace, Long.MAX_VALUE);
    }

    private static String header(ProducerRecord<String, String> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void theRecordCarriesThePayloadAndWhereTheRowCameFrom() {
        TraceContext trace = TraceContext.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "a=1");
        ClaimedRow row = row("rowId", trace);
        ProducerRecord<String, String> r = KafkaTarget.record(row, "orders");
        assertEquals("orders", r.topic());
        assertNull(r.partition(), "the partitioner picks it from the key");
        assertEquals(row.id().toString(), r.key());
        assertEquals("{\"a\": 1}", r.value());
        assertEquals(row.id().toString(), header(r, "outbox-id"));
        assertEquals(row.appId().toString(), header(r, "outbox-app-id"));
        assertEquals("kv", header(r, "outbox-source-kind"));
        assertEquals(row.triggerId().toString(), header(r, "outbox-trigger-id"));
        assertEquals("3", header(r, "outbox-attempt"));
        assertEquals("2", header(r, "outbox-trigger-depth"));
        assertNull(header(r, "outbox-root-execution-id"));
        assertEquals(trace.traceparent(), header(r, "traceparent"));
        assertEquals("a=1", header(r, "tracestate"));
    }

    @Test
    void theTriggerSaysWhatKeysTheRecord() {
        ClaimedRow byApp = row("appId", null);
        assertEquals(byApp.appId().toString(), KafkaTarget.record(byApp, "t").key());
        assertNull(KafkaTarget.record(row("orderingKey", null), "t").key(), "a row in no lane: no key");
        assertEquals("order-7", KafkaTarget.record(row("orderingKey", null).inLane("order-7"), "t").key(),
                "a lane's key");
        ClaimedRow unset = row(null, null);
        assertEquals(unset.id().toString(), KafkaTarget.record(unset, "t").key(), "rowId when the trigger names none");
        assertNull(header(KafkaTarget.record(unset, "t"), "traceparent"));
    }

    @Test
    void producerSettingsPassThroughFromPropertiesAndEnvironmentVariables() {
        assertEquals("sasl.jaas.config", KafkaTarget.setting("outbox.kafka.producer.sasl.jaas.config"));
        assertEquals("security.protocol", KafkaTarget.setting("OUTBOX_KAFKA_PRODUCER_SECURITY_PROTOCOL"));
        assertNull(KafkaTarget.setting("outbox.kafka.producer."));
        assertNull(KafkaTarget.setting("outbox.kafka.bootstrap-servers"));
        assertNull(KafkaTarget.setting("OUTBOX_KAFKA_BOOTSTRAP_SERVERS"));
    }

    private static KafkaTarget target(String bootstrap, Map<String, String> properties) {
        KafkaTarget t = new KafkaTarget();
        t.bootstrapServers = Optional.ofNullable(bootstrap);
        t.deliveryTimeoutMillis = 30_000;
        t.config = new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(properties, "test", 500)).build();
        t.threadFactory = new ManagedThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread thread = new Thread(r);
                thread.setDaemon(true);
                return thread;
            }

            @Override
            public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
                throw new UnsupportedOperationException();
            }
        };
        return t;
    }

    @Test
    void theDeliveryGuaranteeCannotBeSetAwayAndTheTimeoutsFollowTheDeliveryTimeout() {
        Map<String, Object> s = target("k1:9092,k2:9092", Map.of("outbox.kafka.producer.acks", "0",
                "outbox.kafka.producer.enable.idempotence", "false", "outbox.kafka.producer.batch.size", "65536",
                "outbox.kafka.producer.transactional.id", "x", "outbox.kafka.producer.retries", "0",
                "outbox.kafka.producer.max.in.flight.requests.per.connection", "50")).settings();
        assertEquals("all", s.get("acks"));
        assertEquals("true", s.get("enable.idempotence"));
        assertNull(s.get("transactional.id"));
        assertNull(s.get("retries"), "the producer's own (retried until its delivery timeout)");
        assertNull(s.get("max.in.flight.requests.per.connection"), "the idempotent producer's own (5)");
        assertEquals("65536", s.get("batch.size"), "other settings pass through");
        assertEquals("k1:9092,k2:9092", s.get("bootstrap.servers"));
        assertEquals("5000", s.get("max.block.ms"));
        // the producer gives up before the attempt does: 30 s less the metadata wait, less a second
        assertEquals("24000", s.get("delivery.timeout.ms"));
        assertEquals("23995", s.get("request.timeout.ms"), "within the delivery timeout, after the linger");

        Map<String, Object> own = target("k:9092", Map.of("outbox.kafka.producer.delivery.timeout.ms", "10000"))
                .settings();
        assertEquals("10000", own.get("delivery.timeout.ms"));
        assertEquals("9995", own.get("request.timeout.ms"), "within the delivery timeout it was given");

        assertEquals("lz4", target("k:9092", Map.of("outbox.kafka.producer.compression.type", "lz4")).settings()
                .get("compression.type"));
        assertNull(
                target("k:9092", Map.of("outbox.kafka.producer.compression.type", "zstd")).settings()
                        .get("compression.type"),
                "a codec the WAR does not bundle is not asked for");
    }

    @Test
    void withoutAClusterOrAProducerRowsFailTheirAttemptSayingWhy() throws Exception {
        DeliveryResult none = target(null, Map.of()).deliver(row("rowId", null), 3, Duration.ofSeconds(1)).get(5,
                TimeUnit.SECONDS);
        assertTrue(((DeliveryResult.Failed) none).error().contains("outbox.kafka.bootstrap-servers"), none.toString());
        assertTrue(target(" ", Map.of()).refusal().isPresent(), "blank is unset");

        KafkaTarget unresolvable = target("no-such-host.invalid:9092", Map.of());
        try {
            for (int i = 0; i < 3; i++) {
                DeliveryResult r = unresolvable.deliver(row("rowId", null), 3, Duration.ofSeconds(1)).get(5,
                        TimeUnit.SECONDS);
                assertTrue(((DeliveryResult.Failed) r).error().startsWith("the Kafka producer could not be made"),
                        r.toString());
            }
            assertEquals(1, unresolvable.producersTried,
                    "within the pause the producer is not tried again at every row");
        } finally {
            unresolvable.close();
        }
    }

    @Test
    void aSecretSettingsValueNeverReachesAMessage() {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"Very-Secret-1\";";
        KafkaTarget t = target("k:9092", Map.of("outbox.kafka.producer.sasl.jaas.config", jaas,
                "OUTBOX_KAFKA_PRODUCER_SSL_KEY_PASSWORD", "Key-Pass-2", "outbox.kafka.producer.linger.ms", "1234"));
        String message = t.scrub("Invalid value " + jaas + " and Key-Pass-2 for ...; linger 1234");
        assertTrue(!message.contains("Very-Secret-1") && !message.contains("Key-Pass-2"), message);
        assertTrue(message.contains("linger 1234"), "other values stay: " + message);
        String part = t.scrub("Unable to parse JAAS option: password=\"Very-Secret-1\" at 3");
        assertTrue(!part.contains("Very-Secret-1") && part.contains("password=\"[hidden]\""), part);
    }

    @Test
    void failuresThatMayPassAreRetriedTheOthersDeadLetter() {
        assertInstanceOf(DeliveryResult.Failed.class, KafkaTarget.KafkaFailures.result(new TimeoutException("x"), "t"));
        assertInstanceOf(DeliveryResult.Failed.class,
                KafkaTarget.KafkaFailures.result(new NotEnoughReplicasException("x"), "t"));
        assertInstanceOf(DeliveryResult.Rejected.class,
                KafkaTarget.KafkaFailures.result(new InvalidTopicException("x"), "t"));
        assertInstanceOf(DeliveryResult.Rejected.class,
                KafkaTarget.KafkaFailures.result(new RecordTooLargeException("x"), "t"));
        DeliveryResult denied = KafkaTarget.KafkaFailures.result(new TopicAuthorizationException("x"), "orders");
        assertInstanceOf(DeliveryResult.Rejected.class, denied);
        assertTrue(((DeliveryResult.Rejected) denied).error().contains("orders"));
    }
}
