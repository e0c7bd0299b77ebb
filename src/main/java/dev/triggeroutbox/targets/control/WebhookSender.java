package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.dispatch.entity.ClaimedRow;
import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * POSTs one row to its webhook, signed the Standard Webhooks way, without blocking a thread while the
 * target answers. A plain class, so it runs in unit tests against a local server; {@link WebhookTarget}
 * wires it into CDI.
 */
final class WebhookSender {

    /** The most of a response body kept as the reply. */
    static final int REPLY_BYTES = 64 * 1024;

    private final HttpClient client;
    private final WebhookAddressPolicy policy;
    private final Duration timeout;
    private final Duration connectTimeout;
    private final Executor executor;
    private final Clock clock;
    private final WebhookCircuits circuits;

    WebhookSender(HttpClient client, WebhookAddressPolicy policy, Duration timeout, Duration connectTimeout,
            Executor executor, Clock clock, WebhookCircuits circuits) {
        this.client = client;
        this.circuits = circuits;
        this.policy = policy;
        this.timeout = timeout;
        this.connectTimeout = connectTimeout;
        this.executor = executor;
        this.clock = clock;
    }

    /** The one client all deliveries share: HTTP/1.1 (what webhook receivers expect), redirects never followed. */
    static HttpClient client(Duration connectTimeout, Executor executor) {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout)
                .executor(executor)
                .build();
    }

    /**
     * Starts the delivery. When the caller completes the returned future exceptionally (the dispatcher's
     * timeout), the HTTP exchange in flight is cancelled, which closes its connection.
     */
    CompletableFuture<DeliveryResult> send(ClaimedRow row) {
        return send(row, null);
    }

    /** As {@link #send(ClaimedRow)}, giving up after {@code deliveryTimeout} (null: none) from the start. */
    CompletableFuture<DeliveryResult> send(ClaimedRow row, Duration deliveryTimeout) {
        CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<?>> exchange = new AtomicReference<>();
        result.whenComplete((r, e) -> {
            CompletableFuture<?> inFlight = exchange.get();
            if (e != null && inFlight != null) {
                inFlight.cancel(true);
            }
        });
        try {
            // the address check resolves the host name, which blocks: keep it off the caller's thread
            executor.execute(() -> {
                if (deliveryTimeout != null) {
                    result.orTimeout(deliveryTimeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                }
                start(row, result, exchange);
            });
        } catch (RejectedExecutionException e) {
            result.complete(DeliveryResult.failed("webhook delivery could not start: the executor is not accepting work"));
        }
        return result;
    }

    private void start(ClaimedRow row, CompletableFuture<DeliveryResult> result,
            AtomicReference<CompletableFuture<?>> exchange) {
        if (result.isDone()) {
            return; // given up on before it began
        }
        try {
            WebhookAddressPolicy.Verdict verdict = policy.check(row.trigger().target());
            if (!verdict.allowed()) {
                // a name that does not resolve now may resolve later; a refused address will not change
                result.complete(verdict.unresolved() ? DeliveryResult.failed(verdict.refusal())
                        : DeliveryResult.rejected(verdict.refusal()));
                return;
            }
            WebhookSignature signature;
            try {
                signature = WebhookSignature.of(row.trigger().secret());
            } catch (IllegalArgumentException e) {
                result.complete(DeliveryResult.rejected("trigger " + row.triggerId() + " has no valid signing secret"));
                return;
            }
            URI uri = verdict.uri();
            String origin = origin(uri);
            WebhookCircuits.Admission admission = circuits.admit(origin);
            if (!admission.send()) {
                result.complete(new DeliveryResult.Failed(admission.reason(), Duration.ofMillis(admission.deferMillis())));
                return;
            }
            HttpRequest request = request(row, uri, signature, clock.instant().getEpochSecond(), timeout);
            CompletableFuture<HttpResponse<String>> sent = client.sendAsync(request, BoundedBody.handler(REPLY_BYTES));
            exchange.set(sent);
            if (result.isCompletedExceptionally()) {
                sent.cancel(true); // timed out while the exchange was being set up
            }
            sent.whenComplete((response, e) -> {
                String failure = e == null ? null : WebhookFailures.describe(e, uri.getHost(), timeout, connectTimeout);
                circuits.record(origin, admission, e == null || !WebhookFailures.unreachable(e), failure);
                result.complete(e == null
                        ? WebhookReplies.result(response.statusCode(), response.body(),
                                response.headers().firstValue("Location").orElse(null),
                                response.headers().firstValue("Retry-After").orElse(null), clock.instant())
                        : DeliveryResult.failed(failure));
            });
        } catch (RuntimeException e) {
            result.complete(DeliveryResult.failed("webhook delivery could not start: " + WebhookReplies.snippet(e.getMessage())));
        }
    }

    /** Scheme, host and port: what one circuit stands for. */
    static String origin(URI uri) {
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        return uri.getScheme().toLowerCase(java.util.Locale.ROOT) + "://" + uri.getHost().toLowerCase(java.util.Locale.ROOT)
                + ":" + port;
    }

    /**
     * The signed POST for one attempt. {@code webhook-id} is the row id, the same on every retry, so
     * receivers can drop duplicates; the timestamp and signature are fresh per attempt.
     */
    static HttpRequest request(ClaimedRow row, URI uri, WebhookSignature signature, long timestamp, Duration timeout) {
        byte[] body = row.payload().getBytes(StandardCharsets.UTF_8);
        String id = row.id().toString();
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("User-Agent", "trigger-outbox")
                .header("webhook-id", id)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", signature.sign(id, timestamp, body))
                .header("outbox-attempt", Integer.toString(row.attemptCount()))
                .header("outbox-trigger-depth", Integer.toString(row.triggerDepth()));
        optional(b, "outbox-app-id", row.appId());
        optional(b, "outbox-source-kind", row.sourceKind());
        optional(b, "outbox-trigger-id", row.triggerId());
        optional(b, "outbox-root-execution-id", row.rootExecutionId());
        return b.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    private static void optional(HttpRequest.Builder b, String name, Object value) {
        if (value != null) {
            b.header(name, value.toString());
        }
    }
}
