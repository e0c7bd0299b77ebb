package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.dispatch.entity.ClaimedRow;
import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.triggers.entity.KafkaKey;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Delivers to a topic of a Kafka cluster: one record per row, the payload as its value, where the row came from
 * as its headers, keyed as the trigger says ({@link KafkaKey}). Delivered means acknowledged by every in-sync
 * replica: the producer is idempotent with {@code acks=all}, whatever the pass-through settings say.
 * <p>
 * One producer per node, made at the first delivery and closed with the application. Records are handed to it
 * on a thread of its own, because a send waits for the topic's metadata (or for room in the producer's buffer)
 * up to {@code max.block.ms}: a broker that is down or a topic that does not exist holds back Kafka rows only,
 * never the drain loop or the other targets. The broker's acknowledgement completes the delivery on the
 * producer's I/O thread. A topic whose metadata did not arrive in time is failed at once for
 * {@link #TOPIC_PAUSE_MILLIS} (its rows spend the attempt and back off, as any target's), so that a backlog of
 * one missing topic does not wait {@code max.block.ms} a row, in turn, before the other topics' rows.
 */
@ApplicationScoped
public class KafkaTarget implements DeliveryTarget {

    private static final Logger LOG = Logger.getLogger(KafkaTarget.class.getName());
    static final long TOPIC_PAUSE_MILLIS = 5_000;
    static final String PASS_THROUGH = "outbox.kafka.producer.";
    /** Settings the delivery guarantee rests on: a pass-through value for them is ignored (and logged, by name). */
    static final List<String> FIXED = List.of("acks", "enable.idempotence", "key.serializer", "value.serializer",
            "transactional.id");

    /**
     * The Kafka cluster kafka targets send to, as the producer's {@code bootstrap.servers} (host:port, comma
     * separated). Unset: kafka triggers are refused at registration, and rows of existing ones fail their attempts.
     */
    @Inject
    @ConfigProperty(name = "outbox.kafka.bootstrap-servers")
    Optional<String> bootstrapServers;

    /** The deliveries' timeout (DispatchSettings): the producer's delivery.timeout.ms unless a pass-through sets it. */
    @Inject
    @ConfigProperty(name = "outbox.delivery.timeout-ms", defaultValue = "30000")
    long deliveryTimeoutMillis;

    /**
     * Every {@code outbox.kafka.producer.<name>} property (or {@code OUTBOX_KAFKA_PRODUCER_<NAME>} variable) is the
     * producer setting {@code <name>} (security, compression, batching, client.id, ...); values are never logged.
     * See {@link #FIXED} for those it may not set.
     */
    @Inject
    Config config;

    @Resource
    ManagedThreadFactory threadFactory;

    /** One row waiting to be handed to the producer. */
    private record Job(ClaimedRow row, Duration timeout, CompletableFuture<DeliveryResult> result) {
    }

    private final LinkedBlockingQueue<Job> waiting = new LinkedBlockingQueue<>();
    /** Per topic, until when ({@link System#nanoTime()}) its rows fail at once: its metadata did not arrive in time. */
    private final Map<String, Long> pausedTopics = new ConcurrentHashMap<>();
    private KafkaProducer<String, String> producer;
    private Thread sender;
    /** Why the producer could not be made, and until when ({@link System#nanoTime()}) that answer stands. */
    private String unmade;
    private long unmadeUntil;
    private volatile boolean closed;

    @Override
    public String type() {
        return "kafka";
    }

    /** Why a kafka trigger cannot be registered on this node; empty when it can. */
    public Optional<String> refusal() {
        if (bootstrapServers.filter(s -> !s.isBlank()).isEmpty()) {
            return Optional.of("no Kafka cluster is configured (outbox.kafka.bootstrap-servers): kafka targets need one");
        }
        return Optional.empty();
    }

    @Override
    public CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout) {
        CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
        if (closed) {
            result.complete(new DeliveryResult.NotStarted("the node is stopping"));
            return result;
        }
        Optional<String> refusal = refusal();
        if (refusal.isPresent()) {
            result.complete(DeliveryResult.failed(refusal.get()));
            return result;
        }
        String unmade = startSender();
        if (unmade != null) {
            result.complete(DeliveryResult.failed("the Kafka producer could not be made: " + unmade));
            return result;
        }
        waiting.add(new Job(row, timeout, result));
        return result;
    }

    @Override
    public int stopStarting() {
        closed = true;
        List<Job> given = new ArrayList<>();
        waiting.drainTo(given);
        given.forEach(job -> job.result.complete(new DeliveryResult.NotStarted("the node is stopping")));
        return given.size();
    }

    @PreDestroy
    void close() {
        stopStarting();
        KafkaProducer<String, String> p;
        synchronized (this) {
            p = producer;
            if (sender != null) {
                sender.interrupt();
            }
        }
        if (p != null) {
            // what the brokers have not acknowledged by then fails its attempt (the rows are delivered again later)
            p.close(Duration.ofSeconds(5));
        }
    }

    /**
     * Makes the producer and its sender thread at the first delivery; null when they run. When the producer
     * cannot be made (a setting Kafka refuses, a bootstrap host that does not resolve), why: the rows fail their
     * attempts, and it is tried again {@link #TOPIC_PAUSE_MILLIS} later, not at every row (that runs on the drain
     * loop's thread). Logged once per reason.
     */
    private synchronized String startSender() {
        if (sender != null) {
            return null;
        }
        if (unmadeUntil != 0 && System.nanoTime() - unmadeUntil < 0) {
            return unmade;
        }
        try {
            producer = new KafkaProducer<>(settings(), new StringSerializer(), new StringSerializer());
        } catch (RuntimeException e) {
            String why = scrub(HandlerTarget.describe(e));
            if (!why.equals(unmade)) {
                LOG.log(Level.WARNING, "the Kafka producer could not be made (tried again every few seconds while kafka "
                        + "rows are due): {0}", why);
            }
            unmade = why;
            unmadeUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TOPIC_PAUSE_MILLIS);
            return why;
        }
        unmade = null;
        unmadeUntil = 0;
        sender = threadFactory.newThread(this::send);
        sender.setName("outbox-kafka-sender");
        sender.start();
        return null;
    }

    /** The producer's settings: the pass-through ones, then those the guarantee needs. */
    Map<String, Object> settings() {
        Map<String, Object> s = new HashMap<>();
        s.put("client.id", "trigger-outbox");
        for (String name : config.getPropertyNames()) {
            String setting = setting(name);
            if (setting != null) {
                if (FIXED.contains(setting)) {
                    LOG.log(Level.WARNING, "{0} is ignored: kafka targets always send with acks=all, idempotent, untransacted", name);
                    continue;
                }
                config.getOptionalValue(name, String.class).ifPresent(v -> s.put(setting, v));
            }
        }
        s.put("bootstrap.servers", bootstrapServers.orElseThrow());
        s.put("acks", "all");
        s.put("enable.idempotence", "true");
        // an attempt ends within the deliveries' timeout: the producer gives up on a record by then too
        long linger = Long.parseLong(String.valueOf(s.getOrDefault("linger.ms", "5")));
        s.putIfAbsent("delivery.timeout.ms", String.valueOf(deliveryTimeoutMillis));
        s.putIfAbsent("request.timeout.ms", String.valueOf(Math.max(1, deliveryTimeoutMillis - linger)));
        s.putIfAbsent("max.block.ms", String.valueOf(Math.min(5_000, deliveryTimeoutMillis / 2)));
        return s;
    }

    /**
     * The producer setting a property passes through, or null: {@code outbox.kafka.producer.sasl.jaas.config}, or
     * as an environment variable {@code OUTBOX_KAFKA_PRODUCER_SASL_JAAS_CONFIG} (Kafka's setting names are dotted
     * lower case, so the variable's name maps back to one).
     */
    static String setting(String property) {
        if (property.startsWith(PASS_THROUGH) && property.length() > PASS_THROUGH.length()) {
            return property.substring(PASS_THROUGH.length());
        }
        String variable = "OUTBOX_KAFKA_PRODUCER_";
        if (property.startsWith(variable) && property.length() > variable.length()) {
            return property.substring(variable.length()).toLowerCase(Locale.ROOT).replace('_', '.');
        }
        return null;
    }

    /** The sender thread: hands each waiting row to the producer, in turn. */
    private void send() {
        while (!closed) {
            Job job;
            try {
                job = waiting.take();
            } catch (InterruptedException e) {
                return;
            }
            if (job.result.isDone()) {
                continue; // given up on before it was sent
            }
            if (System.nanoTime() - job.row.startBy() > 0) {
                job.result.complete(new DeliveryResult.NotStarted("the Kafka producer took no record in time"));
                continue;
            }
            try {
                send(job);
            } catch (RuntimeException e) {
                // whatever went wrong with this row, the thread goes on with the next
                job.result.complete(DeliveryResult.failed("Kafka send failed: " + HandlerTarget.describe(e)));
            }
        }
    }

    private void send(Job job) {
        ClaimedRow row = job.row;
        String topic = row.trigger().target();
        Long pausedUntil = pausedTopics.get(topic);
        if (pausedUntil != null) {
            if (System.nanoTime() - pausedUntil < 0) {
                job.result.complete(DeliveryResult.failed("Kafka topic " + topic + " had no metadata within max.block.ms"
                        + " a moment ago; tried again in a few seconds"));
                return;
            }
            pausedTopics.remove(topic, pausedUntil);
        }
        job.result.orTimeout(job.timeout.toMillis(), TimeUnit.MILLISECONDS); // from now: the record is sent
        Thread sending = Thread.currentThread();
        try {
            producer.send(record(row, topic), (metadata, failure) -> {
                // a failure reported on this thread, within send(): the producer never took the record; a timeout
                // then is the topic's metadata that did not come within max.block.ms (not the brokers' answer)
                if (failure instanceof TimeoutException && Thread.currentThread() == sending) {
                    pause(topic);
                }
                job.result.complete(failure == null ? delivered(metadata) : scrub(KafkaFailures.result(failure, topic)));
            });
        } catch (TimeoutException e) {
            pause(topic);
            job.result.complete(scrub(KafkaFailures.result(e, topic)));
        } catch (RuntimeException e) {
            job.result.complete(scrub(KafkaFailures.result(e, topic)));
        }
    }

    /** Settings whose values are secrets (passwords, JAAS configurations with them, keys, tokens). */
    private static final Pattern SECRET = Pattern.compile(
            "(?i).*(password|secret|jaas|credential|token|\\.key$|keystore\\.key|certificate\\.chain).*");

    /**
     * The message with the values of secret settings replaced by {@code [hidden]}: failures are logged and stored
     * with the row (its last error), and a message of Kafka's may quote the value it refused.
     */
    String scrub(String message) {
        if (message == null) {
            return null;
        }
        String scrubbed = message;
        for (String name : config.getPropertyNames()) {
            String setting = setting(name);
            if (setting != null && SECRET.matcher(setting).matches()) {
                String value = config.getOptionalValue(name, String.class).orElse("");
                if (value.length() >= 4) {
                    scrubbed = scrubbed.replace(value, "[hidden]");
                }
            }
        }
        return scrubbed;
    }

    private DeliveryResult scrub(DeliveryResult result) {
        if (result instanceof DeliveryResult.Failed f) {
            return new DeliveryResult.Failed(scrub(f.error()), f.retryAfter());
        }
        if (result instanceof DeliveryResult.Rejected r) {
            return new DeliveryResult.Rejected(scrub(r.error()), r.disableTrigger());
        }
        return result;
    }

    private void pause(String topic) {
        pausedTopics.put(topic, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TOPIC_PAUSE_MILLIS));
    }

    /** The reply (for invoke): where the broker put the record. */
    private static DeliveryResult delivered(RecordMetadata m) {
        return new DeliveryResult.Delivered(Jsons.object().add("topic", m.topic()).add("partition", m.partition())
                .add("offset", m.offset()).build().toString());
    }

    /** The payload as the value, the key the trigger names, where it came from as headers (the webhooks' names). */
    static ProducerRecord<String, String> record(ClaimedRow row, String topic) {
        RecordHeaders h = new RecordHeaders();
        header(h, "outbox-id", row.id().toString());
        header(h, "outbox-app-id", row.appId().toString());
        header(h, "outbox-source-kind", row.sourceKind());
        if (row.triggerId() != null) {
            header(h, "outbox-trigger-id", row.triggerId().toString());
        }
        header(h, "outbox-attempt", String.valueOf(row.attemptCount()));
        if (row.rootExecutionId() != null) {
            header(h, "outbox-root-execution-id", row.rootExecutionId().toString());
        }
        header(h, "outbox-trigger-depth", String.valueOf(row.triggerDepth()));
        if (row.trace() != null) {
            // the producer's W3C trace context, under the names OpenTelemetry's Kafka instrumentation reads
            header(h, "traceparent", row.trace().traceparent());
            if (row.trace().tracestate() != null) {
                header(h, "tracestate", row.trace().tracestate());
            }
        }
        return new ProducerRecord<>(topic, null, key(row), row.payload(), h);
    }

    private static String key(ClaimedRow row) {
        KafkaKey key = KafkaKey.fromWire(row.trigger().targetKey()).orElse(KafkaKey.DEFAULT);
        return switch (key) {
            case ROW_ID -> row.id().toString();
            case APP_ID -> row.appId().toString();
            // rows carry no ordering key yet: sent without a key, spread over the partitions
            case ORDERING_KEY -> null;
        };
    }

    private static void header(RecordHeaders headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Which Kafka failures may pass (a broker down, a leader moving, a full buffer) and which will not. */
    static final class KafkaFailures {

        private KafkaFailures() {
        }

        static DeliveryResult result(Throwable e, String topic) {
            if (e instanceof InvalidTopicException) {
                return DeliveryResult.rejected("Kafka refused the topic name " + topic);
            }
            if (e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException) {
                return DeliveryResult.rejected("the payload is larger than Kafka takes on topic " + topic
                        + " (max.request.size, the topic's max.message.bytes)");
            }
            if (e instanceof AuthorizationException) {
                return DeliveryResult.rejected("not allowed to write to Kafka topic " + topic);
            }
            return DeliveryResult.failed("Kafka send to topic " + topic + " failed: " + HandlerTarget.describe(e));
        }
    }
}
