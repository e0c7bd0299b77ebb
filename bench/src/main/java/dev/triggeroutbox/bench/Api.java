package dev.triggeroutbox.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server as the harness reaches it: the product's REST API and the benchmark's own endpoint
 * ({@code /bench}), HTTP/1.1 with keep-alive and Basic auth of the bench user.
 */
final class Api {

    static final String BASE = "http://127.0.0.1:" + Server.HTTP_PORT + "/outbox/api/v1";
    static final String AUTH = "Basic " + Base64.getEncoder().encodeToString(
            (Server.USER + ":" + Server.PASSWORD).getBytes(StandardCharsets.UTF_8));

    private final HttpClient client = newClient();

    /** One keep-alive client: HTTP/1.1 on purpose (no h2c upgrade attempt), its own connection pool. */
    static HttpClient newClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    static HttpRequest.Builder request(String path, Duration timeout) {
        return HttpRequest.newBuilder(URI.create(BASE + path)).timeout(timeout)
                .header("Authorization", AUTH).header("Accept", "application/json")
                .header("X-Requested-By", "trigger-outbox-bench"); // a body-less POST needs it (cross-site request rule)
    }

    static HttpRequest postJson(String path, String json, Duration timeout) {
        return request(path, timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    }

    /** Registers a trigger of kind kv whose target is the named handler; answers its id. */
    UUID createHandlerTrigger(UUID app, String handler) throws IOException, InterruptedException {
        return createTrigger(app, "{\"type\":\"handler\",\"name\":\"" + handler + "\"}");
    }

    /** Registers a trigger of kind kv that POSTs to {@code url}; answers its id. */
    UUID createKafkaTrigger(UUID app, String topic) throws IOException, InterruptedException {
        return createTrigger(app, "{\"type\":\"kafka\",\"topic\":\"" + topic + "\",\"key\":\"rowId\"}");
    }

    UUID createWebhookTrigger(UUID app, String url) throws IOException, InterruptedException {
        return createTrigger(app, "{\"type\":\"webhook\",\"url\":\"" + url + "\"}");
    }

    private UUID createTrigger(UUID app, String target) throws IOException, InterruptedException {
        String body = send(postJson("/apps/" + app + "/triggers", "{\"sourceKind\":\"kv\",\"target\":" + target + "}",
                Duration.ofSeconds(30)), 201);
        return UUID.fromString(string(body, "id"));
    }

    void deleteTrigger(UUID app, UUID trigger) throws IOException, InterruptedException {
        send(request("/apps/" + app + "/triggers/" + trigger, Duration.ofSeconds(30)).DELETE().build(), 204);
    }

    /** A counter of the server's Prometheus text ({@code /metrics}) without labels. */
    long metric(String name) throws IOException, InterruptedException {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " ([0-9]+)$")
                .matcher(send(
                        request("/metrics", Duration.ofSeconds(10)).setHeader("Accept", "text/plain").GET().build(),
                        200));
        if (!m.find()) {
            throw new IllegalStateException("no counter " + name + " in /metrics");
        }
        return Long.parseLong(m.group(1));
    }

    long handled() throws IOException, InterruptedException {
        return (long) number(send(request("/bench/handled", Duration.ofSeconds(10)).GET().build(), 200), "handled");
    }

    String latencyRun(UUID app, int rate, int seconds, int producers) throws IOException, InterruptedException {
        String query = String.format(Locale.ROOT, "?app=%s&rate=%d&seconds=%d&producers=%d", app, rate, seconds,
                producers);
        return send(request("/bench/latency" + query, Duration.ofSeconds(seconds + 120L))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), 200);
    }

    /** Rows/s of the Java API inside the server: one event per transaction, or {@code batch} events per {@code publishAll}. */
    String javaApiEnqueue(UUID app, int threads, int seconds, int warmup, int batch)
            throws IOException, InterruptedException {
        String query = String.format(Locale.ROOT, "?app=%s&threads=%d&seconds=%d&warmup=%d&batch=%d", app, threads,
                seconds,
                warmup, batch);
        return send(request("/bench/enqueue" + query, Duration.ofSeconds(seconds + warmup + 60L))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), 200);
    }

    private String send(HttpRequest request, int expected) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expected) {
            throw new IllegalStateException(request.method() + " " + request.uri() + " answered " + r.statusCode()
                    + " (expected " + expected + "): " + r.body());
        }
        return r.body();
    }

    // The answers are small flat JSON objects the benchmark wrote itself (or the product's trigger), so a
    // key's first occurrence is the value wanted; no JSON library needed on the harness side.
    static double number(String json, String key) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(key) + "\"\\s*:\\s*(-?[0-9.eE+-]+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no number '" + key + "' in " + json);
        }
        return Double.parseDouble(m.group(1));
    }

    static String string(String json, String key) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(key) + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no string '" + key + "' in " + json);
        }
        return m.group(1);
    }
}
