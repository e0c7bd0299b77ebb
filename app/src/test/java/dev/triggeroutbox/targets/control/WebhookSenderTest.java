package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
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
import org.junit.jupiter.api.Timeout;

/** The sender against a real HTTP server on the loopback interface (allow-listed, as in the ITs). */
class WebhookSenderTest {

    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final Instant NOW = Instant.parse("2024-05-01T12:00:00Z");

    /** What the server saw of one request. */
    private record Seen(String path, Headers headers, String body) {
    }

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    private final List<WebhookClient> clients = new ArrayList<>();
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
    void stop() throws Exception {
        for (WebhookClient c : clients) {
            c.close();
        }
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

    private WebhookSender sender(String allowList, Duration timeout) throws Exception {
        return sender(allowList, timeout, host -> {
            throw new UnknownHostException(host);
        }, new WebhookCircuits(0, 60_000, 7_000, System::nanoTime, bound -> 0));
    }

    /** A sender as {@link WebhookTarget} builds one, with its own client, on this test's threads and DNS. */
    private WebhookSender sender(String allowList, Duration timeout, WebhookAddressPolicy.Resolver dns,
            WebhookCircuits circuits) throws Exception {
        return sender(allowList, timeout, dns, circuits, 64);
    }

    private WebhookSender sender(String allowList, Duration timeout, WebhookAddressPolicy.Resolver dns,
            WebhookCircuits circuits, int perOrigin) throws Exception {
        WebhookAddressPolicy policy = new WebhookAddressPolicy(WebhookAllowList.parse(allowList), dns);
        Duration connect = Duration.ofSeconds(2);
        HostResolver resolver = new HostResolver(dns, executor, 100, 30_000, 1_000, System::nanoTime);
        WebhookClient client = new WebhookClient(connect, WebhookSender.IDLE_MILLIS, WebhookSender.REPLY_BYTES,
                new CheckedAddresses(policy, resolver), Executors.defaultThreadFactory(), null);
        clients.add(client);
        return new WebhookSender(client, policy, timeout, connect, Clock.fixed(NOW, ZoneOffset.UTC), circuits,
                new OriginGate(perOrigin, perOrigin, System::nanoTime));
    }

    private WebhookSender sender() throws Exception {
        return sender("127.0.0.1", Duration.ofSeconds(5));
    }

    private static ClaimedRow row(String url, String secret, ExecutionId root) {
        return new ClaimedRow(OutboxId.random(), new AppId(UUID.randomUUID()), "kv", new TriggerId(UUID.randomUUID()),
                null, null, "{\"key\": \"k1\", \"value\": \"Zoë\"}", "alice", 2, root, 3, null,
                OffsetDateTime.now(ZoneOffset.UTC), OffsetDateTime.now(ZoneOffset.UTC),
                new ClaimedRow.TriggerTarget("webhook", url, secret, null));
    }

    /** A row of a trigger whose secret was rotated from {@code previous}, which signs until {@code expires}. */
    private static ClaimedRow rotatedRow(String url, String secret, String previous, Instant expires) {
        return new ClaimedRow(OutboxId.random(), new AppId(UUID.randomUUID()), "kv", new TriggerId(UUID.randomUUID()),
                null, null, "{\"rotated\": true}", "alice", 0, null, 1, null, OffsetDateTime.now(ZoneOffset.UTC),
                OffsetDateTime.now(ZoneOffset.UTC), new ClaimedRow.TriggerTarget("webhook", url, secret, null,
                        previous, expires.atOffset(ZoneOffset.UTC)));
    }

    /** A context that answers 204 after {@code delayMillis} and counts the most requests it held at once. */
    private AtomicInteger mostAtOnce(String path, long delayMillis) {
        AtomicInteger now = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        server.createContext(path, exchange -> {
            exchange.getRequestBody().readAllBytes();
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                now.decrementAndGet();
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        return most;
    }

    @Test
    void atMostTheOriginsPlacesAreInFlightAndAWaitForOneSpendsNoneOfTheExchangesTime() throws Exception {
        AtomicInteger most = mostAtOnce("/slow", 300);
        WebhookSender sender = sender("127.0.0.1", Duration.ofMillis(700), host -> {
            throw new UnknownHostException(host);
        }, new WebhookCircuits(0, 60_000, 7_000, System::nanoTime, bound -> 0), 1);
        List<CompletableFuture<DeliveryResult>> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add(sender.send(row(base + "/slow", SECRET, null), Duration.ofSeconds(5)));
        }
        for (CompletableFuture<DeliveryResult> f : sent) {
            // the third waits about 600 ms for its place, then has its whole 700 ms: delivered, not timed out
            assertInstanceOf(DeliveryResult.Delivered.class, await(f));
        }
        assertEquals(1, most.get(), "one request at a time to the origin");
    }

    @Test
    void aDeliveryStillWaitingForItsOriginAtItsStartDeadlineIsGivenBackUnstarted() throws Exception {
        mostAtOnce("/slow", 400);
        WebhookSender sender = sender("127.0.0.1", Duration.ofSeconds(2), host -> {
            throw new UnknownHostException(host);
        }, new WebhookCircuits(0, 60_000, 7_000, System::nanoTime, bound -> 0), 1);
        CompletableFuture<DeliveryResult> first = sender.send(row(base + "/slow", SECRET, null), Duration.ofSeconds(2));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        CompletableFuture<DeliveryResult> late = sender.send(row(base + "/slow", SECRET, null).startingBy(deadline),
                Duration.ofSeconds(2));
        assertInstanceOf(DeliveryResult.Delivered.class, await(first));
        DeliveryResult r = await(late);
        assertInstanceOf(DeliveryResult.NotStarted.class, r, "waited past its start deadline: no attempt spent");
        assertTrue(((DeliveryResult.NotStarted) r).reason().contains("outbox.webhook.max-connections-per-origin"),
                r.toString());
        assertEquals(Map.of(), sender.rooms(), "nothing left at the origin");
    }

    private static DeliveryResult await(CompletableFuture<DeliveryResult> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void postsTheSignedPayloadAndKeepsTheAnswerAsReply() throws Exception {
        answer("/hook", 200, Map.of("Content-Type", "application/json"), "{\"got\":1}".getBytes(StandardCharsets.UTF_8),
                0);
        ExecutionId root = ExecutionId.random();
        ClaimedRow row = row(base + "/hook", SECRET, root);

        DeliveryResult result = await(sender().send(row));

        assertEquals(new DeliveryResult.Delivered("{\"got\":1}", 200), result);
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
    void duringASecretsOverlapBothSecretsSignNewFirst() throws Exception {
        answer("/rotated", 204, Map.of(), new byte[0], 0);
        String previous = WebhookSignature.newSecret();
        ClaimedRow row = rotatedRow(base + "/rotated", SECRET, previous, NOW.plusSeconds(1));

        assertInstanceOf(DeliveryResult.Delivered.class, await(sender().send(row)));

        String header = seen.poll(5, TimeUnit.SECONDS).headers().getFirst("webhook-signature");
        String[] signatures = header.split(" ");
        assertEquals(2, signatures.length, header);
        byte[] body = row.payload().getBytes(StandardCharsets.UTF_8);
        String id = row.id().toString();
        assertEquals(WebhookSignature.of(SECRET).sign(id, NOW.getEpochSecond(), body), signatures[0],
                "the new secret's first");
        assertEquals(WebhookSignature.of(previous).sign(id, NOW.getEpochSecond(), body), signatures[1]);
        assertFalse(signatures[0].equals(signatures[1]));
    }

    @Test
    void afterTheOverlapOnlyTheNewSecretSigns() throws Exception {
        answer("/expired", 204, Map.of(), new byte[0], 0);
        ClaimedRow row = rotatedRow(base + "/expired", SECRET, WebhookSignature.newSecret(), NOW);

        assertInstanceOf(DeliveryResult.Delivered.class, await(sender().send(row)));

        assertEquals(WebhookSignature.of(SECRET).sign(row.id().toString(), NOW.getEpochSecond(),
                row.payload().getBytes(StandardCharsets.UTF_8)),
                seen.poll(5, TimeUnit.SECONDS).headers().getFirst("webhook-signature"));
    }

    @Test
    void aTriggerTargetNeverPrintsItsSecrets() {
        String previous = WebhookSignature.newSecret();
        String text = rotatedRow("https://hooks.example/in", SECRET, previous, NOW).trigger().toString();
        assertFalse(text.contains(SECRET.substring(6)) || text.contains(previous.substring(6)), text);
    }

    @Test
    void omitsHeadersWithoutAValue() {
        ClaimedRow row = row("https://hooks.example/in", SECRET, null);
        Map<String, List<String>> h = headers(row);
        assertNull(h.get("outbox-root-execution-id"));
        assertEquals(List.of("1700000000"), h.get("webhook-timestamp"));
    }

    @Test
    void sendsTheRowsTraceContextAndNoneWithoutOne() {
        ClaimedRow plain = row("https://hooks.example/in", SECRET, null);
        Map<String, List<String>> none = headers(plain);
        assertNull(none.get("traceparent"));
        assertNull(none.get("tracestate"));

        TraceContext trace = TraceContext.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "rojo=1");
        ClaimedRow traced = new ClaimedRow(plain.id(), plain.appId(), plain.sourceKind(), plain.triggerId(), null, null,
                plain.payload(), null, 0, null, 1, null, plain.createdAt(), plain.dueAt(), plain.trigger(), trace,
                Long.MAX_VALUE);
        Map<String, List<String>> h = headers(traced);
        assertEquals(List.of(trace.traceparent()), h.get("traceparent"));
        assertEquals(List.of("rojo=1"), h.get("tracestate"));
    }

    /** The headers the sender gives {@code row}'s request, signed at 1,700,000,000 with {@link #SECRET}. */
    private static Map<String, List<String>> headers(ClaimedRow row) {
        Map<String, List<String>> h = new java.util.HashMap<>();
        WebhookSender.headers((name, value) -> h.computeIfAbsent(name, n -> new ArrayList<>()).add(value), row,
                WebhookSignature.of(SECRET), null, 1_700_000_000L, new byte[0]);
        return h;
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
        WebhookSender sender = sender("127.0.0.1", Duration.ofSeconds(5), host -> {
            throw new UnknownHostException(host);
        }, circuits);
        String url = "http://127.0.0.1:" + port + "/hook";
        for (int i = 0; i < 2; i++) {
            DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class,
                    await(sender.send(row(url, SECRET, null))));
            assertTrue(f.error().startsWith("could not connect to 127.0.0.1"), f.error());
            assertNull(f.retryAfter());
        }
        // open: not sent, and not to be tried again before the circuit half-opens (1 s)
        DeliveryResult.Failed skipped = assertInstanceOf(DeliveryResult.Failed.class,
                await(sender.send(row(url, SECRET, null))));
        assertTrue(
                skipped.error()
                        .startsWith("not sent: http://127.0.0.1:" + port + " could not be reached by 2 deliveries"),
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
    void aDeliveryTimeoutShorterThanTheWebhookTimeoutBoundsTheExchange() throws Exception {
        answer("/slow", 200, Map.of(), new byte[0], 2_000);
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class,
                await(sender("127.0.0.1", Duration.ofSeconds(5)).send(row(base + "/slow", SECRET, null),
                        Duration.ofMillis(300))));
        assertEquals("webhook at 127.0.0.1 did not answer within 300 ms", f.error());
    }

    @Test
    void aReceiversCookiesNeverTravelWithLaterDeliveries() throws Exception {
        answer("/hook", 204, Map.of("Set-Cookie", "session=abc; Path=/"), new byte[0], 0);
        WebhookSender sender = sender();
        assertInstanceOf(DeliveryResult.Delivered.class, await(sender.send(row(base + "/hook", SECRET, null))));
        assertInstanceOf(DeliveryResult.Delivered.class, await(sender.send(row(base + "/hook", SECRET, null))));
        seen.poll(5, TimeUnit.SECONDS);
        Seen second = seen.poll(5, TimeUnit.SECONDS);
        assertNull(second.headers().getFirst("Cookie"), "the second delivery carried the receiver's cookie");
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
    @Timeout(30)
    void aNameServerThatHangsForOneHostDelaysOnlyThatHostsDeliveries() throws Exception {
        answer("/hook", 200, Map.of(), new byte[0], 0);
        CountDownLatch release = new CountDownLatch(1);
        WebhookAddressPolicy.Resolver dns = host -> {
            if (host.equals("slow.example")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new InetAddress[] {InetAddress.getLoopbackAddress()};
        };
        WebhookSender sender = sender("127.0.0.1", Duration.ofSeconds(20), dns,
                new WebhookCircuits(0, 60_000, 7_000, System::nanoTime, bound -> 0));
        int port = server.getAddress().getPort();
        try {
            long before = System.nanoTime();
            CompletableFuture<DeliveryResult> slow = sender
                    .send(row("http://slow.example:" + port + "/hook", SECRET, null));
            assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(2), "send waited for the name server");

            assertInstanceOf(DeliveryResult.Delivered.class,
                    await(sender.send(row("http://fast.example:" + port + "/hook", SECRET, null))));
            assertFalse(slow.isDone(), "the slow host's delivery ended before its name resolved");
            release.countDown();
            assertInstanceOf(DeliveryResult.Delivered.class, await(slow));
        } finally {
            release.countDown();
        }
    }

    @Test
    void connectsToTheAddressesItCheckedWithoutASecondLookup() throws Exception {
        answer("/hook", 200, Map.of(), new byte[0], 0);
        AtomicInteger lookups = new AtomicInteger();
        // a rebinding name server: the first answer passes the check, every later one is a private address
        WebhookAddressPolicy.Resolver dns = host -> new InetAddress[] {lookups.getAndIncrement() == 0
                ? InetAddress.getLoopbackAddress()
                : AddressRange.literal("10.0.0.7").orElseThrow()};
        WebhookSender sender = sender("127.0.0.1", Duration.ofSeconds(5), dns,
                new WebhookCircuits(0, 60_000, 7_000, System::nanoTime, bound -> 0));
        String url = "http://rebind.example:" + server.getAddress().getPort() + "/hook";

        assertInstanceOf(DeliveryResult.Delivered.class, await(sender.send(row(url, SECRET, null))));
        assertInstanceOf(DeliveryResult.Delivered.class, await(sender.send(row(url, SECRET, null))));

        assertEquals(1, lookups.get());
    }

    @Test
    void aNameThatResolvesToARefusedAddressIsRejectedAtConnectWithoutARequest() throws Exception {
        answer("/hook", 200, Map.of(), new byte[0], 0);
        WebhookSender sender = sender("127.0.0.1", Duration.ofSeconds(5),
                host -> new InetAddress[] {AddressRange.literal("10.0.0.7").orElseThrow()},
                new WebhookCircuits(0, 60_000, 7_000, System::nanoTime, bound -> 0));

        DeliveryResult.Rejected r = assertInstanceOf(DeliveryResult.Rejected.class,
                await(sender
                        .send(row("http://inside.example:" + server.getAddress().getPort() + "/hook", SECRET, null))));

        assertTrue(r.error().startsWith("host inside.example resolves to a private address"), r.error());
        assertFalse(r.disableTrigger());
        assertNull(seen.poll(200, TimeUnit.MILLISECONDS), "the refused address was called");
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
