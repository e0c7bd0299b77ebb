package dev.triggeroutbox.faults;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A webhook receiver in the harness's process (JDK HttpServer on loopback): answers 200 to every POST and
 * records it by its {@code webhook-id} (the outbox row id): how many times, when first, and how far the
 * sender's {@code webhook-timestamp} was from this machine's clock. It can answer slowly, it can refuse
 * timestamps too far off as a Standard Webhooks verifier does, and it can go down (its port closed: connections
 * refused) and come back on the same port.
 */
final class Receiver implements AutoCloseable {

    /** What the receiver saw of one row. */
    static final class Hit {
        final AtomicInteger count = new AtomicInteger();
        volatile long firstNanos;
        volatile long firstEpochMillis;
        volatile long lastNanos;
        /** Each delivery: ms after the first, and the {@code outbox-attempt} it carried ("+0.0s#1 +4.1s#2"). */
        final StringBuffer deliveries = new StringBuffer();
    }

    /** Connections waiting to be accepted (the kernel caps it at net.core.somaxconn, 4,096 here). */
    private static final int ACCEPT_BACKLOG = 4_096;

    private static final int READERS = 4;

    private final Map<UUID, Hit> hits = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong maxTimestampSkew = new AtomicLong();
    private final AtomicLong slowestAnswer = new AtomicLong();
    private final AtomicLong refusedTimestamps = new AtomicLong();
    private volatile long timestampTolerance = Long.MAX_VALUE;
    /**
     * Read requests and answer them: a few, so that a burst of thousands of requests (scenario 9) never becomes
     * thousands of runnable threads in this process, on the cores the nodes share (their run queue, not the
     * nodes' work, would then be what the nodes' latency shows).
     */
    private final ExecutorService threads = Executors.newFixedThreadPool(READERS, r -> {
        Thread t = new Thread(r, "receiver");
        t.setDaemon(true);
        return t;
    });
    /** Answers the delayed requests when their delay is over. */
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "receiver-delays");
        t.setDaemon(true);
        return t;
    });
    private int port;
    private volatile long delayMillis;
    private HttpServer server;

    private Receiver() {
    }

    /** A receiver on an ephemeral port of loopback; it keeps that port when it goes down and comes back. */
    static Receiver start() throws IOException {
        Receiver r = new Receiver();
        r.up();
        r.port = r.server.getAddress().getPort();
        return r;
    }

    String url() {
        return "http://127.0.0.1:" + port + "/hook";
    }

    /**
     * From now on a request whose {@code webhook-timestamp} is more than {@code seconds} off this machine's clock
     * is answered 400 (Standard Webhooks verifiers refuse such timestamps, 5 minutes by default).
     */
    void refuseTimestampsOffBy(long seconds) {
        timestampTolerance = seconds;
    }

    /** Requests refused for their timestamp. */
    long refusedTimestamps() {
        return refusedTimestamps.get();
    }

    /** Each answer waits this long first (rows stay in flight on their node meanwhile). */
    void delay(long millis) {
        delayMillis = millis;
    }

    synchronized void up() throws IOException {
        if (server != null) {
            return;
        }
        // scenario 9 opens thousands of connections within a second; a short accept queue drops their SYNs (the
        // kernel's ListenOverflows), and the receiver would look partly down instead of slow
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), ACCEPT_BACKLOG);
        server.createContext("/hook", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    /** Closes the port: from now on connections are refused, as for a receiver that is down. */
    synchronized void down() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        long now = System.nanoTime();
        String id = exchange.getRequestHeaders().getFirst("webhook-id");
        String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
        requests.incrementAndGet();
        if (timestamp != null) {
            long skew = Math.abs(Long.parseLong(timestamp) - Instant.now().getEpochSecond());
            maxTimestampSkew.accumulateAndGet(skew, Math::max);
            if (skew > timestampTolerance) {
                refusedTimestamps.incrementAndGet();
                try (exchange) {
                    exchange.sendResponseHeaders(400, -1); // not recorded as delivered: the sender dead-letters it
                }
                return;
            }
        }
        if (id != null) {
            Hit hit = hits.computeIfAbsent(UUID.fromString(id), k -> {
                Hit h = new Hit();
                h.firstNanos = now;
                h.firstEpochMillis = System.currentTimeMillis();
                return h;
            });
            hit.count.incrementAndGet();
            hit.lastNanos = now;
            hit.deliveries.append(String.format(java.util.Locale.ROOT, " +%.1fs#%s", (now - hit.firstNanos) / 1e9,
                    exchange.getRequestHeaders().getFirst("outbox-attempt")));
        }
        long delay = delayMillis;
        if (delay > 0) {
            // answered later by the timer thread, holding no thread meanwhile: thousands of held requests (scenario
            // 9) would otherwise be thousands of sleeping threads started within a second, whose creation costs this
            // process (on the cores the nodes use) more than the nodes' own work, and show as the nodes' latency
            later.schedule(() -> answer(exchange, now), delay, TimeUnit.MILLISECONDS);
        } else {
            answer(exchange, now);
        }
    }

    private void answer(HttpExchange exchange, long readAt) {
        try (exchange) {
            exchange.sendResponseHeaders(200, -1);
            slowestAnswer.accumulateAndGet(System.nanoTime() - readAt, Math::max);
        } catch (IOException e) {
            // the sender gave up (its timeout): nothing to answer
        }
    }

    Hit hit(UUID id) {
        return hits.get(id);
    }

    Map<UUID, Hit> hits() {
        return hits;
    }

    long requests() {
        return requests.get();
    }

    /** The largest difference seen between a {@code webhook-timestamp} and this machine's clock, in seconds. */
    long maxTimestampSkewSeconds() {
        return maxTimestampSkew.get();
    }

    /** The longest this receiver took from reading a request to sending its answer, in ms (its delay included). */
    long slowestAnswerMillis() {
        return slowestAnswer.get() / 1_000_000;
    }

    @Override
    public void close() {
        down();
        threads.shutdownNow();
        later.shutdownNow();
    }
}
