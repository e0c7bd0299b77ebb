package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import dev.triggeroutbox.targets.entity.KafkaKey;
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
import org.apache.kafka.clients.producer.BufferExhaustedException;
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
 * One producer per node, made by a thread of its own at the first delivery and closed with the application.
 * That thread also hands the records to it, because a send waits for the topic's metadata (or for room in the
 * producer's buffer) up to {@code max.block.ms}: a broker that is down, a topic that does not exist or a name
 * server that is slow holds back Kafka rows only, never the drain loop or the other targets. The broker's
 * acknowledgement completes the delivery on the producer's I/O thread. A topic whose metadata did not arrive in
 * time fails its rows at once for a pause (its rows spend the attempt and back off, as any target's) of ten
 * times {@code max.block.ms} at least, doubling while the topic stays missing up to {@link #MAX_PAUSE_MILLIS}: a
 * missing topic takes at most a tenth of the thread's time from the other topics' rows.
 */
@ApplicationScoped
public class KafkaTarget implements DeliveryTarget {

    private static final Logger LOG = Logger.getLogger(KafkaTarget.class.getName());
    static final long MIN_PAUSE_MILLIS = 5_000;
    static final long MAX_PAUSE_MILLIS = 300_000;
    static final String PASS_THROUGH = "outbox.kafka.producer.";
    /** Settings the delivery guarantee rests on: a pass-through value for them is ignored (and logged, by name). */
    static final List<String> FIXED = List.of("acks", "enable.idempotence", "key.serializer", "value.serializer",
            "transactional.id", "retries", "max.in.flight.requests.per.connection");
    /** Compression codecs the WAR does not bundle (native libraries): a pass-through naming one is ignored. */
    static final List<String> UNBUNDLED_CODECS = List.of("snappy", "zstd");

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
    /** A topic whose metadata did not arrive in time: until when ({@link System#nanoTime()}) its rows fail at once. */
    private record Pause(long until, long millis) {
    }

    /** Per topic, its pause (written and read by the sender thread and the producer's I/O thread). */
    private final Map<String, Pause> pausedTopics = new ConcurrentHashMap<>();
    /** Made and used by the sender thread; read by {@link #close()}. */
    private volatile KafkaProducer<String, String> producer;
    private Thread sender;
    /** Why the producer could not be made, and until when ({@link System#nanoTime()}) that answer stands (sender thread). */
    private String unmade;
    private long unmadeUntil;
    /** Producers the sender tried to make (tests: a failing one is not tried at every row). */
    volatile int producersTried;
    /** The values {@link #scrub} hides, read from the configuration at the first failure. */
    private volatile List<String> secrets;
    /** The producer's max.block.ms: how long a send() may wait for a topic's metadata. */
    private long maxBlockMillis = 5_000;
    private volatile boolean closed;

    @Override
    public String type() {
        return "kafka";
    }

    /** Why a kafka trigger cannot be registered on this node; empty when it can. */
    public Optional<String> refusal() {
        if (bootstrapServers.filter(s -> !s.isBlank()).isEmpty()) {
            return Optional
                    .of("no Kafka cluster is configured (outbox.kafka.bootstrap-servers): kafka targets need one");
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
        String noThread = startSender();
        if (noThread != null) {
            result.complete(DeliveryResult.failed("no thread to send Kafka records: " + noThread));
            return result;
        }
        Job job = new Job(row, timeout, result);
        waiting.add(job);
        if (closed && waiting.remove(job)) {
            result.complete(new DeliveryResult.NotStarted("the node is stopping")); // stopStarting() ran meanwhile
        }
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
        synchronized (this) {
            if (sender != null) {
                sender.interrupt();
                try {
                    sender.join(5_000); // it may be in a send() that waits for metadata
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        KafkaProducer<String, String> p = producer;
        if (p != null) {
            // what the brokers have not acknowledged by then fails its attempt (the rows are delivered again later)
            p.close(Duration.ofSeconds(5));
        }
    }

    /** Starts the sender thread at the first delivery (and again should it have died); null when it runs, else why not. */
    private synchronized String startSender() {
        if (sender != null && sender.isAlive()) {
            return null;
        }
        try {
            Thread t = threadFactory.newThread(this::send);
            t.setName("outbox-kafka-sender");
            t.start();
            sender = t;
            return null;
        } catch (RuntimeException e) {
            return HandlerTarget.describe(e);
        }
    }

    /**
     * The producer, made on the sender thread at its first record; null when it cannot be made (a setting Kafka
     * refuses, a bootstrap host that does not resolve): then {@link #unmade} says why, the rows fail their attempts,
     * and it is tried again {@link #MIN_PAUSE_MILLIS} later, not at every row. Logged once per reason.
     */
    private KafkaProducer<String, String> producer() {
        if (producer != null) {
            return producer;
        }
        if (unmadeUntil != 0 && System.nanoTime() - unmadeUntil < 0) {
            return null;
        }
        producersTried++;
        try {
            Map<String, Object> settings = settings();
            maxBlockMillis = Long.parseLong(String.valueOf(settings.get("max.block.ms")).strip());
            producer = new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer());
            unmade = null;
            unmadeUntil = 0;
            return producer;
        } catch (RuntimeException e) {
            String why = scrub(HandlerTarget.describe(e));
            if (!why.equals(unmade)) {
                LOG.log(Level.WARNING,
                        "the Kafka producer could not be made (tried again every few seconds while kafka "
                                + "rows are due): {0}",
                        why);
            }
            unmade = why;
            unmadeUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MIN_PAUSE_MILLIS);
            return null;
        }
    }

    /** The producer's settings: the pass-through ones, then those the guarantee needs. */
    Map<String, Object> settings() {
        Map<String, Object> s = new HashMap<>();
        s.put("client.id", "trigger-outbox");
        for (String name : config.getPropertyNames()) {
            String setting = setting(name);
            if (setting != null) {
                if (FIXED.contains(setting)) {
                    LOG.log(Level.WARNING,
                            "{0} is ignored: kafka targets always send with acks=all, idempotent, retried,"
                                    + " untransacted",
                            name);
                    continue;
                }
                String value = config.getOptionalValue(name, String.class).orElse(null);
                if (setting.equals("compression.type") && value != null && UNBUNDLED_CODECS.contains(value.strip())) {
                    LOG.log(Level.WARNING, "{0}={1} is ignored: the WAR does not bundle that codec (gzip or lz4 do)",
                            new Object[] {name, value});
                    continue;
                }
                if (value != null) {
                    s.put(setting, value);
                }
            }
        }
        s.put("bootstrap.servers", bootstrapServers.orElseThrow());
        s.put("acks", "all");
        s.put("enable.idempotence", "true");
        // the producer gives up on a record before the attempt's timeout (armed before send(), which may wait up to
        // max.block.ms): a record it gave up on is not acknowledged later, behind a retry that sends it again
        s.putIfAbsent("max.block.ms", String.valueOf(Math.min(5_000, deliveryTimeoutMillis / 2)));
        long maxBlock = Long.parseLong(String.valueOf(s.get("max.block.ms")).strip());
        long linger = Long.parseLong(String.valueOf(s.getOrDefault("linger.ms", "5")).strip());
        long delivery = Math.max(2, deliveryTimeoutMillis - maxBlock - Math.min(1_000, deliveryTimeoutMillis / 10));
        s.putIfAbsent("delivery.timeout.ms", String.valueOf(delivery));
        // Kafka asks delivery.timeout.ms >= linger.ms + request.timeout.ms, of the values it is given
        long effective = Long.parseLong(String.valueOf(s.get("delivery.timeout.ms")).strip());
        s.putIfAbsent("request.timeout.ms", String.valueOf(Math.max(1, effective - linger)));
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
                KafkaProducer<String, String> p = producer();
                if (p == null) {
                    job.result.complete(DeliveryResult.failed("the Kafka producer could not be made: " + unmade));
                } else {
                    send(p, job);
                }
            } catch (RuntimeException | Error e) {
                job.result.complete(DeliveryResult.failed("Kafka send failed: " + scrub(HandlerTarget.describe(e))));
                if (e instanceof Error error) {
                    throw error; // the next delivery starts a new sender thread
                }
                // whatever else went wrong with this row, the thread goes on with the next
            }
        }
    }

    private void send(KafkaProducer<String, String> p, Job job) {
        ClaimedRow row = job.row;
        String topic = row.trigger().target();
        Pause pause = pausedTopics.get(topic);
        if (pause != null && System.nanoTime() - pause.until() < 0) {
            job.result
                    .complete(DeliveryResult.failed("Kafka topic " + topic + " had no metadata within max.block.ms; its"
                            + " rows fail at once for " + pause.millis() / 1000 + " s, then it is tried again"));
            return;
        }
        job.result.orTimeout(job.timeout.toMillis(), TimeUnit.MILLISECONDS); // from now: the record is sent
        Thread sending = Thread.currentThread();
        try {
            p.send(record(row, topic), (metadata, failure) -> {
                // a failure reported on this thread, within send(): the producer never took the record; a timeout
                // then is the topic's metadata that did not come within max.block.ms (not the brokers' answer), unless
                // it is the producer's buffer that had no room (every topic's, so no topic is paused for it)
                if (failure instanceof TimeoutException && !(failure instanceof BufferExhaustedException)
                        && Thread.currentThread() == sending) {
                    pause(topic, pause);
                } else if (failure == null && pause != null) {
                    pausedTopics.remove(topic, pause);
                }
                job.result
                        .complete(failure == null ? delivered(metadata) : scrub(KafkaFailures.result(failure, topic)));
            });
        } catch (TimeoutException e) {
            if (!(e instanceof BufferExhaustedException)) {
                pause(topic, pause);
            }
            job.result.complete(scrub(KafkaFailures.result(e, topic)));
        } catch (RuntimeException e) {
            job.result.complete(scrub(KafkaFailures.result(e, topic)));
        }
    }

    /** Pauses a topic: ten times max.block.ms at first (5 s at least), twice the last pause while it stays missing. */
    private void pause(String topic, Pause last) {
        long millis = last == null
                ? Math.max(MIN_PAUSE_MILLIS, 10 * maxBlockMillis)
                : Math.min(MAX_PAUSE_MILLIS, 2 * last.millis());
        pausedTopics.put(topic, new Pause(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis), millis));
    }

    /** The secret options of a JAAS login module configuration ({@code password="..."}). */
    private static final Pattern JAAS_SECRET = Pattern
            .compile("(?i)\\b(password|secret|token|clientSecret)\\s*=\\s*\"[^\"]*\"");

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
        for (String value : secretValues()) {
            scrubbed = scrubbed.replace(value, "[hidden]");
        }
        // a message may quote a part of a JAAS configuration only
        return JAAS_SECRET.matcher(scrubbed).replaceAll("$1=\"[hidden]\"");
    }

    /** The values of the secret pass-through settings, read once (a broker that is down fails every row's message). */
    private List<String> secretValues() {
        List<String> values = secrets;
        if (values == null) {
            List<String> found = new ArrayList<>();
            for (String name : config.getPropertyNames()) {
                String setting = setting(name);
                if (setting != null && SECRET.matcher(setting).matches()) {
                    config.getOptionalValue(name, String.class).filter(v -> v.length() >= 4).ifPresent(found::add);
                }
            }
            values = secrets = List.copyOf(found);
        }
        return values;
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
            // a row without an ordering key is sent without a key, spread over the partitions
            case ORDERING_KEY -> row.orderingKey();
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
