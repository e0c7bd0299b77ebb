package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook client against receivers that behave as real ones do: over TLS, with kept-alive connections they close
 * when idle, with chunked or unbounded answers, with interim answers. {@link WebhookSenderTest} covers what the
 * sender makes of answers and failures.
 */
class WebhookClientTest {

    @TempDir
    static Path dir;
    private static KeyStore keys;

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final List<AutoCloseable> open = new ArrayList<>();

    /** A key pair whose certificate names localhost and 127.0.0.1, made by the JDK's keytool. */
    @BeforeAll
    static void certificate() throws Exception {
        Path store = dir.resolve("receiver.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "receiver", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", store.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true)
                .start();
        String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, keytool.waitFor(), out);
        keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, "changeit".toCharArray());
        }
    }

    /** The transport every test here runs on: the one the server picks (WebhookClientNioTest runs them on NIO). */
    boolean epoll() {
        return WebhookClient.EPOLL;
    }

    /** The native transport bundled in the WAR loads where it is built for, so webhooks get it there. */
    @Test
    void theNativeTransportLoadsOnLinuxX86() {
        assumeTrue(System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64")
                && !Boolean.getBoolean("io.netty.transport.noNative"));
        assertTrue(WebhookClient.EPOLL, () -> "epoll: " + io.netty.channel.epoll.Epoll.unavailabilityCause());
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        executor.shutdownNow();
    }

    /** A client that trusts {@code trusted} (null: the JVM's default trust store), resolving every name to loopback. */
    private WebhookClient client(KeyStore trusted) throws Exception {
        return client(trusted, 30_000);
    }

    private WebhookClient client(KeyStore trusted, long idleMillis) throws Exception {
        TrustManagerFactory trust = null;
        if (trusted != null) {
            trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
        }
        WebhookAddressPolicy policy = new WebhookAddressPolicy(
                WebhookAllowList.parse("127.0.0.1,localhost,receiver.test"),
                host -> new InetAddress[] {InetAddress.getLoopbackAddress()});
        HostResolver dns = new HostResolver(host -> new InetAddress[] {InetAddress.getLoopbackAddress()}, executor, 10,
                30_000, 1_000, System::nanoTime);
        WebhookClient client = new WebhookClient(Duration.ofSeconds(2), idleMillis, 1024,
                new CheckedAddresses(policy, dns),
                Executors.defaultThreadFactory(), trust, epoll());
        open.add(client);
        return client;
    }

    private static WebhookClient.Answer post(WebhookClient client, String url) throws Exception {
        WebhookClient.Request request = new WebhookClient.Request(URI.create(url),
                "{\"a\":1}".getBytes(StandardCharsets.UTF_8))
                .header("webhook-id", "msg_1");
        return client.post(request, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
    }

    private HttpsServer https() throws Exception {
        KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        km.init(keys, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(km.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(executor);
        server.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        open.add(() -> server.stop(0));
        return server;
    }

    @Test
    void postsOverTlsToACertificateItTrusts() throws Exception {
        int port = https().getAddress().getPort();
        WebhookClient.Answer a = post(client(keys), "https://localhost:" + port + "/hook");
        assertEquals(200, a.status());
        assertEquals("{\"ok\":true}", a.body());
    }

    @Test
    void refusesACertificateThatNamesAnotherHost() throws Exception {
        int port = https().getAddress().getPort();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> post(client(keys), "https://receiver.test:" + port + "/hook"));
        assertInstanceOf(SSLException.class, e.getCause(), e.getCause().toString());
    }

    @Test
    void refusesACertificateNobodyVouchesFor() throws Exception {
        int port = https().getAddress().getPort();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> post(client(null), "https://localhost:" + port + "/hook"));
        assertInstanceOf(SSLException.class, e.getCause(), e.getCause().toString());
    }

    /**
     * A receiver on a plain socket: reads each request on a connection and answers with what {@code answer} writes
     * (it may close the connection); counts the connections.
     */
    private int raw(Consumer<Socket> perConnection) throws Exception {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        open.add(listener);
        executor.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket s = listener.accept();
                    executor.execute(() -> perConnection.accept(s));
                } catch (Exception e) {
                    return;
                }
            }
        });
        return listener.getLocalPort();
    }

    /** Reads one request (head and Content-Length body); false at the end of the stream. */
    private static boolean readRequest(BufferedReader in) throws Exception {
        String line = in.readLine();
        if (line == null) {
            return false;
        }
        int length = 0;
        while (!(line = in.readLine()).isEmpty()) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        for (int i = 0; i < length; i++) {
            in.read();
        }
        return true;
    }

    private static void answer(Socket s, Responder responder) {
        try (s;
                BufferedReader in = new BufferedReader(
                        new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                OutputStream out = s.getOutputStream()) {
            int n = 0;
            while (readRequest(in)) {
                if (!responder.respond(n++, out)) {
                    return;
                }
                out.flush();
            }
        } catch (Exception e) {
            // the client went away
        }
    }

    /** Writes the answer to request {@code n} of a connection; false closes the connection after it. */
    @FunctionalInterface
    private interface Responder {
        boolean respond(int n, OutputStream out) throws Exception;
    }

    private static void write(OutputStream out, String text) throws Exception {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void keepsOneConnectionForDeliveriesOneAfterAnother() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        int port = raw(s -> {
            connections.incrementAndGet();
            answer(s, (n, out) -> {
                write(out, "HTTP/1.1 204 No Content\r\n\r\n");
                return true;
            });
        });
        WebhookClient client = client(null);
        for (int i = 0; i < 20; i++) {
            assertEquals(204, post(client, "http://127.0.0.1:" + port + "/hook").status());
        }
        assertEquals(1, connections.get());
    }

    @Test
    void aConnectionTheReceiverClosedWhileIdleIsNotUsedAgain() throws Exception {
        Set<Integer> answered = ConcurrentHashMap.newKeySet();
        AtomicInteger connections = new AtomicInteger();
        int port = raw(s -> {
            int c = connections.incrementAndGet();
            answer(s, (n, out) -> {
                answered.add(c);
                write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                return false; // keep-alive said, then the connection closes: as a receiver's idle timeout does
            });
        });
        WebhookClient client = client(null);
        for (int i = 0; i < 5; i++) {
            WebhookClient.Answer a = post(client, "http://127.0.0.1:" + port + "/hook");
            assertEquals(200, a.status());
            assertEquals("ok", a.body());
            Thread.sleep(50); // the close reaches the client
        }
        assertEquals(5, answered.size());
    }

    @Test
    void aKeptConnectionClosedAsTheRequestGoesOutIsRetriedOnANewOne() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        int port = raw(s -> {
            int c = connections.incrementAndGet();
            answer(s, (n, out) -> {
                if (c == 1 && n == 1) {
                    return false; // the second request on the first connection: closed unanswered
                }
                write(out, "HTTP/1.1 204 No Content\r\n\r\n");
                return true;
            });
        });
        WebhookClient client = client(null);
        assertEquals(204, post(client, "http://127.0.0.1:" + port + "/hook").status());
        assertEquals(204, post(client, "http://127.0.0.1:" + port + "/hook").status());
        assertEquals(2, connections.get());
    }

    @Test
    void readsChunkedAnswersAndAnswersThatEndWithTheConnection() throws Exception {
        int port = raw(s -> answer(s, (n, out) -> {
            if (n == 0) {
                write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
                return true;
            }
            write(out, "HTTP/1.1 202 Accepted\r\nConnection: close\r\n\r\nuntil the end");
            return false;
        }));
        WebhookClient client = client(null);
        assertEquals("abcdefg", post(client, "http://127.0.0.1:" + port + "/hook").body());
        WebhookClient.Answer last = post(client, "http://127.0.0.1:" + port + "/hook");
        assertEquals(202, last.status());
        assertEquals("until the end", last.body());
    }

    @Test
    void waitsPastInterimAnswersForTheRealOne() throws Exception {
        int port = raw(s -> answer(s, (n, out) -> {
            write(out,
                    "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\n"
                            + "Content-Length: 4\r\n\r\nbusy");
            return true;
        }));
        WebhookClient.Answer a = post(client(null), "http://127.0.0.1:" + port + "/hook");
        assertEquals(503, a.status());
        assertEquals("7", a.retryAfter());
        assertEquals("busy", a.body());
    }

    @Test
    void keepsAtMostTheReplyLimitAndClosesTheConnection() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        int port = raw(s -> {
            connections.incrementAndGet();
            answer(s, (n, out) -> {
                write(out, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + "y".repeat(5000));
                return true;
            });
        });
        WebhookClient client = client(null);
        assertEquals(1024, post(client, "http://127.0.0.1:" + port + "/hook").body().length());
        assertEquals(1024, post(client, "http://127.0.0.1:" + port + "/hook").body().length());
        assertEquals(2, connections.get(), "a connection with an unread rest is not used again");
    }

    @Test
    void anAnswerThatIsNotHttpFailsTheExchange() throws Exception {
        int port = raw(s -> answer(s, (n, out) -> {
            write(out, "SSH-2.0-OpenSSH_9.2\r\n\r\n");
            return true;
        }));
        CompletableFuture<WebhookClient.Answer> f = client(null).post(new WebhookClient.Request(
                URI.create("http://127.0.0.1:" + port + "/hook"), new byte[0]), Duration.ofSeconds(5));
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof java.io.IOException || e.getCause() instanceof IllegalArgumentException,
                e.getCause().toString());
    }

    @Test
    void aConnectionUnusedForTheIdleTimeIsClosed() throws Exception {
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        int port = raw(s -> {
            answer(s, (n, out) -> {
                write(out, "HTTP/1.1 204 No Content\r\n\r\n");
                return true;
            });
            closed.countDown(); // the client closed it: the receiver read the end of the stream
        });
        WebhookClient client = client(null, 300);
        client.every(50, () -> {});
        long sent = System.nanoTime();
        assertEquals(204, post(client, "http://127.0.0.1:" + port + "/hook").status());
        assertTrue(closed.await(5, TimeUnit.SECONDS), "the idle connection stayed open");
        assertTrue(System.nanoTime() - sent >= TimeUnit.MILLISECONDS.toNanos(300), "closed before its idle time");
    }

    @Test
    void aHeaderValueWithALineBreakIsRefused() {
        WebhookClient.Request r = new WebhookClient.Request(URI.create("http://127.0.0.1/"), new byte[0]);
        assertThrows(IllegalArgumentException.class, () -> r.header("tracestate", "a=1\r\nX-Injected: yes"));
    }

    @Test
    void sendsTheHostWithItsPortAndTheQuery() throws Exception {
        List<String> heads = new java.util.concurrent.CopyOnWriteArrayList<>();
        int port = raw(s -> {
            try (s;
                    BufferedReader in = new BufferedReader(
                            new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                    OutputStream out = s.getOutputStream()) {
                String line;
                while (!(line = in.readLine()).isEmpty()) {
                    heads.add(line);
                }
                write(out, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
            } catch (Exception e) {
                // the client went away
            }
        });
        assertEquals(204, post(client(null), "http://127.0.0.1:" + port + "/in/hook?x=1&y=%20").status());
        assertEquals("POST /in/hook?x=1&y=%20 HTTP/1.1", heads.get(0));
        assertTrue(heads.contains("Host: 127.0.0.1:" + port), heads.toString());
        assertTrue(heads.contains("webhook-id: msg_1"), heads.toString());
        assertNull(heads.stream().filter(h -> h.toLowerCase().startsWith("accept-encoding")).findFirst().orElse(null));
    }

    @Test
    void aNameThatDoesNotResolveFailsWithTheLookupsException() throws Exception {
        WebhookAddressPolicy policy = new WebhookAddressPolicy(WebhookAllowList.parse(""), host -> {
            throw new UnknownHostException(host);
        });
        HostResolver dns = new HostResolver(host -> {
            throw new UnknownHostException(host);
        }, executor, 10, 30_000, 1_000, System::nanoTime);
        WebhookClient client = new WebhookClient(Duration.ofSeconds(2), 30_000, 1024, new CheckedAddresses(policy, dns),
                Executors.defaultThreadFactory(), null, epoll());
        open.add(client);
        CompletableFuture<WebhookClient.Answer> f = client.post(new WebhookClient.Request(
                URI.create("http://nowhere.example/hook"), new byte[0]), Duration.ofSeconds(5));
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertInstanceOf(UnknownHostException.class, e.getCause());
    }
}
