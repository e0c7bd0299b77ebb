package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.triggeroutbox.dispatch.entity.ClaimedRow;
import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sender against a real HTTP server on the loopback interface (allow-listed, as in the ITs). */
class WebhookSenderTest {

    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final Instant NOW = Instant.parse("2024-05-01T12:00:00Z");

    /** What the server saw of one request. */
    private record Seen(String path, Headers headers, String body) {
    }

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    private HttpServer server;
    private String base;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void answer(String path, int status, Map<String, String> headers, byte[] body, long delayMillis) {
        server.createContext(path, exchange -> {
            byte[] request = exchange.getRequestBody().readAllBytes();
            seen.add(new Seen(exchange.getRequestURI().getPath(), exchange.getRequestHeaders(),
                    new String(request, StandardCharsets.UTF_8)));
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            headers.forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
    }

    private WebhookSender sender(String allowList, Duration timeout) {
        WebhookAddressPolicy policy = new WebhookAddressPolicy(WebhookAllowList.parse(allowList), host -> {
            throw new UnknownHostException(host);
        });
        Duration connect = Duration.ofSeconds(2);
        return new WebhookSender(WebhookSender.client(connect, executor), policy, timeout, connect, executor,
                Clock.fixed(NOW, ZoneOffset.UTC), new WebhookCircuits(0, 60_000, 7_000, System::nanoTime, bound -> 0));
    }

    private WebhookSender sender() {
        return sender("127.0.0.1", Duration.ofSeconds(5));
    }

    private static ClaimedRow row(String url, String secret, ExecutionId root) {
        return new ClaimedRow(OutboxId.random(), new AppId(UUID.randomUUID()), "kv", new TriggerId(UUID.randomUUID()),
                null, null, "{\"key\": \"k1\", \"value\": \"Zoë\"}", "alice", 2, root, 3, null,
                OffsetDateTime.now(ZoneOffset.UTC), OffsetDateTime.now(ZoneOffset.UTC), new ClaimedRow.TriggerTarget("webhook", url, secret, true, null));
    }

    private static DeliveryResult await(CompletableFuture<DeliveryResult> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void postsTheSignedPayloadAndKeepsTheAnswerAsReply() throws Exception {
        answer("/hook", 200, Map.of("Content-Type", "application/json"), "{\"got\":1}".getBytes(StandardCharsets.UTF_8), 0);
        ExecutionId root = ExecutionId.random();
        ClaimedRow row = row(base + "/hook", SECRET, root);

        DeliveryResult result = await(sender().send(row));

        assertEquals(new DeliveryResult.Delivered("{\"got\":1}"), result);
        Seen s = seen.poll(5, TimeUnit.SECONDS);
        assertEquals(row.payload(), s.body());
        Headers h = s.headers();
        assertEquals("application/json", h.getFirst("Content-Type"));
        assertEquals("trigger-outbox", h.getFirst("User-Agent"));
        assertEquals(row.id().toString(), h.getFirst("webhook-id"));
        assertEquals(Long.toString(NOW.getEpochSecond()), h.getFirst("webhook-timestamp"));
        String expected = WebhookSignature.of(SECRET).sign(row.id().toString(), NOW.getEpochSecond(),
                row.payload().getBytes(StandardCharsets.UTF_8));
        assertEquals(expected, h.getFirst("webhook-signature"));
        assertEquals(row.appId().toString(), h.getFirst("outbox-app-id"));
        assertEquals("kv", h.getFirst("outbox-source-kind"));
        assertEquals(row.triggerId().toString(), h.getFirst("outbox-trigger-id"));
        assertEquals("3", h.getFirst("outbox-attempt"));
        assertEquals("2", h.getFirst("outbox-trigger-depth"));
        assertEquals(root.toString(), h.getFirst("outbox-root-execution-id"));
    }

    @Test
    void omitsHeadersWithoutAValue() {
        ClaimedRow row = row("https://hooks.example/in", SECRET, null);
        HttpRequest request = WebhookSender.request(row, URI.create("https://hooks.example/in"),
                WebhookSignature.of(SECRET), 1_700_000_000L, Duration.ofSeconds(1));
        assertTrue(request.headers().firstValue("outbox-root-execution-id").isEmpty());
        assertEquals(List.of("1700000000"), request.headers().allValues("webhook-timestamp"));
        assertEquals("POST", request.method());
        assertEquals(Duration.ofSeconds(1), request.timeout().orElseThrow());
    }

    @Test
    void goneDisablesTheTrigger() throws Exception {
        answer("/gone", 410, Map.of(), new byte[0], 0);
        DeliveryResult.Rejected r = assertInstanceOf(DeliveryResult.Rejected.class,
                await(sender().send(row(base + "/gone", SECRET, null))));
        assertTrue(r.disableTrigger());
    }

    @Test
    void neverFollowsARedirect() throws Exception {
        AtomicInteger followed = new AtomicInteger();
        server.createContext("/elsewhere", exchange -> {
            followed.incrementAndGet();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        answer("/moved", 307, Map.of("Location", base + "/elsewhere"), new byte[0], 0);

        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class,
                await(sender().send(row(base + "/moved", SECRET, null))));

        assertEquals("webhook answered HTTP 307: redirect to " + base + "/elsewhere not followed", f.error());
        assertEquals(0, followed.get());
    }

    @Test
    void keepsOnlyTheFirst64KiBOfAHugeAnswer() throws Exception {
        byte[] huge = "x".repeat(1_000_000).getBytes(StandardCharsets.UTF_8);
        answer("/huge", 200, Map.of(), huge, 0);
        DeliveryResult.Delivered d = assertInstanceOf(DeliveryResult.Delivered.class,
                await(sender().send(row(base + "/huge", SECRET, null))));
        assertEquals(WebhookSender.REPLY_BYTES, d.reply().length());
    }

    @Test
    void aRefusedAddressIsPermanentButKeepsTheTrigger() throws Exception {
        answer("/hook", 200, Map.of(), new byte[0], 0);
        DeliveryResult.Rejected r = assertInstanceOf(DeliveryResult.Rejected.class,
                await(sender("", Duration.ofSeconds(5)).send(row(base + "/hook", SECRET, null))));
        assertFalse(r.disableTrigger());
        assertTrue(r.error().contains("loopback") && r.error().contains("outbox.webhook.allowed-hosts"), r.error());
        assertNull(seen.poll(200, TimeUnit.MILLISECONDS), "the refused endpoint was called");
    }

    @Test
    void anOriginThatRefusesConnectionsIsNotCalledWhileItsCircuitIsOpenAndAProbeClosesIt() throws Exception {
        answer("/hook", 200, Map.of(), new byte[0], 0);
        int port = server.getAddress().getPort();
        server.stop(0); // connections to the port are refused now
        long[] now = {0};
        WebhookCircuits circuits = new WebhookCircuits(2, 60_000, 7_000, () -> now[0], bound -> 0);
        Duration connect = Duration.ofSeconds(2);
        WebhookAddressPolicy policy = new WebhookAddressPolicy(WebhookAllowList.parse("127.0.0.1"), host -> {
            throw new UnknownHostException(host);
        });
        WebhookSender sender = new WebhookSender(WebhookSender.client(connect, executor), policy, Duration.ofSeconds(5),
                connect, executor, Clock.fixed(NOW, ZoneOffset.UTC), circuits);
        String url = "http://127.0.0.1:" + port + "/hook";
        for (int i = 0; i < 2; i++) {
            DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class, await(sender.send(row(url, SECRET, null))));
            assertTrue(f.error().startsWith("could not connect to 127.0.0.1"), f.error());
            assertNull(f.retryAfter());
        }
        // open: not sent, and not to be tried again before the circuit half-opens (1 s)
        DeliveryResult.Failed skipped = assertInstanceOf(DeliveryResult.Failed.class, await(sender.send(row(url, SECRET, null))));
        assertTrue(skipped.error().startsWith("not sent: http://127.0.0.1:" + port + " could not be reached by 2 deliveries"),
                skipped.error());
        assertTrue(skipped.retryAfter().toMillis() >= 1_000, skipped.toString());

        // the receiver is back on the same port; after the open second one delivery probes and closes it
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.setExecutor(executor);
        server.start();
        answer("/hook", 200, Map.of(), new byte[0], 0);
        assertInstanceOf(DeliveryResult.Failed.class, await(sender.send(row(url, SECRET, null))), "still open");
        assertNull(seen.poll(100, TimeUnit.MILLISECONDS), "an open circuit sent a request");
        now[0] += TimeUnit.SECONDS.toNanos(1);
        assertInstanceOf(DeliveryResult.Delivered.class, await(sender.send(row(url, SECRET, null))));
        assertInstanceOf(DeliveryResult.Delivered.class, await(sender.send(row(url, SECRET, null))));
        assertEquals(0, circuits.open());
    }

    @Test
    void aHostThatDoesNotResolveNowIsRetried() throws Exception {
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class,
                await(sender().send(row("https://nowhere.example/hook", SECRET, null))));
        assertEquals("host nowhere.example cannot be resolved", f.error());
    }

    @Test
    void aTriggerWithoutAUsableSecretIsRejected() throws Exception {
        answer("/hook", 200, Map.of(), new byte[0], 0);
        DeliveryResult.Rejected r = assertInstanceOf(DeliveryResult.Rejected.class,
                await(sender().send(row(base + "/hook", null, null))));
        assertTrue(r.error().contains("signing secret"), r.error());
    }

    @Test
    void aSlowAnswerTimesOutAsARetryableFailure() throws Exception {
        answer("/slow", 200, Map.of(), new byte[0], 2_000);
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class,
                await(sender("127.0.0.1", Duration.ofMillis(200)).send(row(base + "/slow", SECRET, null))));
        assertEquals("webhook at 127.0.0.1 did not answer within 200 ms", f.error());
    }

    @Test
    void aRefusedConnectionIsARetryableFailure() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class,
                await(sender().send(row("http://127.0.0.1:" + closedPort + "/", SECRET, null))));
        assertTrue(f.error().startsWith("could not connect to 127.0.0.1"), f.error());
    }

    @Test
    void givingUpOnTheFutureAbortsTheExchange() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CountDownLatch requested = new CountDownLatch(1);
            CountDownLatch closedByClient = new CountDownLatch(1);
            executor.execute(() -> {
                try (Socket socket = listener.accept(); InputStream in = socket.getInputStream()) {
                    byte[] buffer = new byte[8192];
                    int n = in.read(buffer);
                    if (n > 0) {
                        requested.countDown();
                    }
                    // never answer; read until the client closes the connection
                    while (n >= 0) {
                        n = in.read(buffer);
                    }
                    closedByClient.countDown();
                } catch (Exception e) {
                    closedByClient.countDown(); // a reset is a close too
                }
            });
            CompletableFuture<DeliveryResult> result = sender("127.0.0.1", Duration.ofSeconds(60))
                    .send(row("http://127.0.0.1:" + listener.getLocalPort() + "/hook", SECRET, null));
            assertTrue(requested.await(5, TimeUnit.SECONDS), "the request never arrived");

            result.completeExceptionally(new TimeoutException()); // what the dispatcher's orTimeout does

            assertTrue(closedByClient.await(5, TimeUnit.SECONDS), "the connection stayed open after giving up");
        }
    }
}
