package dev.triggeroutbox.faults;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The nodes' REST API as a client reaches it: HTTP/1.1 keep-alive, Basic auth of the harness's admin (triggers,
 * metrics, row status) and producer (events). Answers are small JSON objects read with patterns; the harness
 * needs no JSON library.
 */
final class Rest {

    static final String ADMIN = "faults-admin";
    static final String ADMIN_PASSWORD = "Faults-Admin-1";
    static final String PRODUCER = "faults-producer";
    static final String PRODUCER_PASSWORD = "Faults-Producer-1";

    private static final Pattern ROW_ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f-]{36})\"");
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static HttpRequest.Builder request(Node node, String path, String user, String password) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort + "/outbox/api/v1" + path))
                .timeout(TIMEOUT).header("Authorization", basic(user, password)).header("Accept", "application/json");
    }

    boolean ready(Node node) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort
                    + "/outbox/api/v1/health/ready")).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    /** Registers a webhook trigger of kind kv; answers its id. */
    UUID webhookTrigger(Node node, UUID app, String url, int maxAttempts) throws Exception {
        return webhookTrigger(node, app, "kv", url, maxAttempts);
    }

    /** Registers a webhook trigger of the given source kind; answers its id. */
    UUID webhookTrigger(Node node, UUID app, String kind, String url, int maxAttempts) throws Exception {
        return trigger(node, app, "{\"sourceKind\":\"" + kind + "\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url
                + "\"},\"maxAttempts\":" + maxAttempts + "}");
    }

    /** Registers a handler trigger of kind docs; answers its id. */
    UUID handlerTrigger(Node node, UUID app, String handler, int maxAttempts) throws Exception {
        return trigger(node, app, "{\"sourceKind\":\"docs\",\"target\":{\"type\":\"handler\",\"name\":\"" + handler
                + "\"},\"maxAttempts\":" + maxAttempts + "}");
    }

    private UUID trigger(Node node, UUID app, String body) throws Exception {
        HttpResponse<String> r = client.send(request(node, "/apps/" + app + "/triggers", ADMIN, ADMIN_PASSWORD)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw new IllegalStateException(
                    "creating a trigger on " + node + " answered " + r.statusCode() + ": " + r.body());
        }
        Matcher m = ROW_ID.matcher(r.body());
        if (!m.find()) {
            throw new IllegalStateException("no trigger id in " + r.body());
        }
        return UUID.fromString(m.group(1));
    }

    /**
     * Publishes one event as the producer; answers the ids of the rows written when the node acknowledged it
     * (202), or null when it did not (any other answer, a refused connection, a timeout): then the harness
     * does not know whether a row exists, and the ledger leaves it out.
     */
    List<UUID> publish(Node node, UUID app, String kind, String payload, Instant deliverAt) {
        return publish(node, app, kind, payload, deliverAt, null);
    }

    /** As above, in the ordered lane of {@code orderingKey} (null: none). */
    List<UUID> publish(Node node, UUID app, String kind, String payload, Instant deliverAt, String orderingKey) {
        String body = "{\"sourceKind\":\"" + kind + "\",\"payload\":" + payload
                + (deliverAt == null ? "" : ",\"deliverAt\":\"" + deliverAt + "\"")
                + (orderingKey == null ? "" : ",\"orderingKey\":\"" + orderingKey + "\"") + "}";
        try {
            HttpResponse<String> r = client.send(request(node, "/apps/" + app + "/events", PRODUCER, PRODUCER_PASSWORD)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 202) {
                return null;
            }
            List<UUID> ids = new ArrayList<>(1);
            Matcher m = ROW_ID.matcher(r.body());
            while (m.find()) {
                ids.add(UUID.fromString(m.group(1)));
            }
            return ids;
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * What one invoke got: the status (0 when no answer came), the row it wrote ({@code Outbox-Row-Id}, null
     * without one), when it was sent ({@code System.nanoTime()}) and how long the answer took.
     */
    record Invoked(int status, UUID row, long sentNanos, long millis) {
    }

    /** {@code POST /apps/{app}/triggers/{trigger}/invoke?timeoutMs=} as the producer: waits for the target's answer. */
    Invoked invoke(Node node, UUID app, UUID trigger, String payload, long timeoutMillis) {
        long sent = System.nanoTime();
        try {
            HttpResponse<Void> r = client.send(
                    request(node, "/apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs="
                            + timeoutMillis, PRODUCER, PRODUCER_PASSWORD).timeout(TIMEOUT.plusMillis(timeoutMillis))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"payload\":" + payload + "}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            return new Invoked(r.statusCode(),
                    r.headers().firstValue("Outbox-Row-Id").map(UUID::fromString).orElse(null),
                    sent, (System.nanoTime() - sent) / 1_000_000);
        } catch (Exception e) {
            return new Invoked(0, null, sent, (System.nanoTime() - sent) / 1_000_000);
        }
    }

    /** The node's counters from {@code GET /metrics} (admin), by metric name. */
    Map<String, Double> metrics(Node node) throws Exception {
        HttpResponse<String> r = client.send(
                request(node, "/metrics", ADMIN, ADMIN_PASSWORD).setHeader("Accept", "text/plain").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("metrics of " + node + " answered " + r.statusCode());
        }
        Map<String, Double> values = new HashMap<>();
        for (String line : r.body().split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                int space = line.lastIndexOf(' ');
                values.merge(line.substring(0, space).replaceAll("\\{.*}", ""),
                        Double.parseDouble(line.substring(space + 1)), Double::sum);
            }
        }
        return values;
    }

    /** Where a row stands ({@code GET /outbox/{id}}), for the report of a lost row. */
    String status(Node node, UUID id) {
        try {
            return client.send(request(node, "/outbox/" + id, ADMIN, ADMIN_PASSWORD).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "(no answer: " + e + ")";
        }
    }

    /** Seconds the node's clock is ahead of this one's, read from the Date header of its answer. */
    long clockOffsetSeconds(Node node) throws Exception {
        HttpResponse<Void> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort
                + "/outbox/api/v1/health/live")).timeout(TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.discarding());
        String date = r.headers().firstValue("Date")
                .orElseThrow(() -> new IllegalStateException(node + " sent no Date"));
        return ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond()
                - Instant.now().getEpochSecond();
    }
}
