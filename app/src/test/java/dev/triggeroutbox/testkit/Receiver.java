package dev.triggeroutbox.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A real HTTP server on loopback that receives webhooks and records every request. Each path
 * answers as its script says (status, headers, or never).
 */
public final class Receiver implements AutoCloseable {

    /** One request as it arrived. */
    public record Request(String path, Map<String, List<String>> headers, String body, Instant at) {
        public String header(String name) {
            List<String> values = headers.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }
    }

    /** How a path answers its n-th request (1-based). */
    public record Answer(int status, Map<String, String> headers, String body, long delayMillis) {
        public Answer(int status, Map<String, String> headers, String body) {
            this(status, headers, body, 0);
        }

        public static Answer of(int status) {
            return new Answer(status, Map.of(), "");
        }
    }

    /** An answer that never comes: the exchange is held until the receiver closes. */
    public static final Answer NEVER = new Answer(-1, Map.of(), "");

    private final HttpServer server;
    private final Map<String, BiFunction<Integer, Request, Answer>> scripts = new ConcurrentHashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch closing = new CountDownLatch(1);

    public Receiver() throws IOException {
        // a backlog for hundreds of deliveries arriving at once (the default, 50, drops connects past it)
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newCachedThreadPool());
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public void script(String path, Function<Integer, Answer> answer) {
        scripts.put(path, (n, request) -> answer.apply(n));
    }

    /** A path whose answer depends on the request itself (e.g. echoes its body). */
    public void answer(String path, Function<Request, Answer> answer) {
        scripts.put(path, (n, request) -> answer.apply(request));
    }

    public List<Request> at(String path) {
        return requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    /**
     * The first request of each row that reached {@code path} (by {@code webhook-id}), in arrival
     * order: at-least-once delivery may bring a row again when an attempt was retried.
     */
    public List<Request> rowsAt(String path) {
        Map<String, Request> first = new java.util.LinkedHashMap<>();
        at(path).forEach(r -> first.putIfAbsent(r.header("webhook-id"), r));
        return List.copyOf(first.values());
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Request request = new Request(path, Map.copyOf(lowerCase(exchange.getRequestHeaders())), body, Instant.now());
        requests.add(request);
        int n = at(path).size();
        Answer answer = scripts.getOrDefault(path, (i, r) -> Answer.of(404)).apply(n, request);
        if (answer == NEVER) {
            try {
                closing.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
            return;
        }
        if (answer.delayMillis() > 0) {
            try {
                Thread.sleep(answer.delayMillis()); // a slow target, on purpose
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    private static Map<String, List<String>> lowerCase(Map<String, List<String>> headers) {
        Map<String, List<String>> out = new ConcurrentHashMap<>();
        headers.forEach((k, v) -> out.put(k.toLowerCase(java.util.Locale.ROOT), List.copyOf(v)));
        return out;
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
    }
}
