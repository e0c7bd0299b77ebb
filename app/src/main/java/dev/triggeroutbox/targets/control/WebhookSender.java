package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * POSTs one row to its webhook, signed the Standard Webhooks way, without blocking a thread while the
 * target answers, and without a thread hop before the request is on its way: the per-row checks are
 * cached or cheap, and DNS happens only when the client opens a connection ({@link CheckedAddresses}).
 * A plain class, so it runs in unit tests against a local server; {@link WebhookTarget} wires it into CDI.
 */
final class WebhookSender {

    /** The most of a response body kept as the reply. */
    static final int REPLY_BYTES = 64 * 1024;

    /** How long an unused connection stays open (and keeps the address it was checked for). */
    static final long IDLE_MILLIS = 30_000;

    /** URLs whose form has been checked, and secrets decoded, that are remembered. */
    static final int REMEMBERED = 10_000;

    /** A checked URL and the circuit it belongs to. */
    private record Destination(WebhookAddressPolicy.Verdict verdict, String origin) {
    }

    private final WebhookClient client;
    private final WebhookAddressPolicy policy;
    private final Duration timeout;
    private final Duration connectTimeout;
    private final Clock clock;
    private final WebhookCircuits circuits;
    private final OriginGate gate;
    private final BoundedMemo<String, Destination> destinations;
    private final BoundedMemo<String, WebhookSignature> signatures = new BoundedMemo<>(REMEMBERED,
            WebhookSignature::of);

    WebhookSender(WebhookClient client, WebhookAddressPolicy policy, Duration timeout, Duration connectTimeout,
            Clock clock, WebhookCircuits circuits, OriginGate gate) {
        this.client = client;
        this.gate = gate;
        this.policy = policy;
        this.timeout = timeout;
        this.connectTimeout = connectTimeout;
        this.clock = clock;
        this.circuits = circuits;
        // the check needs no DNS, so its answer for a URL never changes
        this.destinations = new BoundedMemo<>(REMEMBERED, url -> {
            WebhookAddressPolicy.Verdict v = policy.checkUrl(url);
            return new Destination(v, v.allowed() ? origin(v.uri()) : null);
        });
    }

    /**
     * From now on, every {@code millis}, gives back the deliveries waiting past their deadline at an origin whose
     * exchanges all hang (elsewhere an ending exchange does it); stops with the client.
     */
    void sweepEvery(long millis) {
        client.every(millis, gate::expireOverdue);
    }

    /** The room each webhook trigger with deliveries on this node has left at its origin ({@link OriginGate#rooms()}). */
    Map<UUID, Integer> rooms() {
        return gate.rooms();
    }

    /** The node is stopping: deliveries waiting for a place at their origin are given back unstarted. How many. */
    int stopStarting() {
        return gate.expireAll();
    }

    /**
     * Starts the delivery. When the caller completes the returned future exceptionally (the dispatcher's
     * timeout), the HTTP exchange in flight is aborted, which closes its connection.
     */
    CompletableFuture<DeliveryResult> send(ClaimedRow row) {
        return send(row, null);
    }

    /** As {@link #send(ClaimedRow)}, giving up after {@code deliveryTimeout} (null: none) from the start. */
    CompletableFuture<DeliveryResult> send(ClaimedRow row, Duration deliveryTimeout) {
        CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
        // the client's own timeout of the exchange is the only timer a delivery needs
        Duration answerWithin = deliveryTimeout == null || deliveryTimeout.compareTo(timeout) >= 0
                ? timeout
                : deliveryTimeout;
        // a wait for a place at the origin spends none of the exchange's time, so it may last up to the row's
        // start deadline plus what the exchange leaves of the delivery's time
        long slack = deliveryTimeout == null ? 0 : deliveryTimeout.minus(answerWithin).toNanos();
        long deadline = row.startBy() > Long.MAX_VALUE - slack ? Long.MAX_VALUE : row.startBy() + slack;
        try {
            start(row, answerWithin, deadline, result);
        } catch (RuntimeException e) {
            result.complete(DeliveryResult
                    .failed("webhook delivery could not start: " + WebhookReplies.snippet(e.getMessage())));
        }
        return result;
    }

    private void start(ClaimedRow row, Duration answerWithin, long deadline, CompletableFuture<DeliveryResult> result) {
        Destination destination = destinations.get(Objects.requireNonNullElse(row.trigger().target(), ""));
        WebhookAddressPolicy.Verdict verdict = destination.verdict();
        if (!verdict.allowed()) {
            result.complete(DeliveryResult.rejected(verdict.refusal())); // the URL's form or address never changes
            return;
        }
        WebhookSignature signature;
        try {
            signature = signatures.get(Objects.requireNonNullElse(row.trigger().secret(), ""));
        } catch (IllegalArgumentException e) {
            result.complete(DeliveryResult.rejected("trigger " + row.triggerId() + " has no valid signing secret"));
            return;
        }
        WebhookSignature previous = previousSignature(row.trigger());
        String origin = destination.origin();
        UUID trigger = row.triggerId() == null ? null : row.triggerId().value();
        Runnable send = () -> exchange(row, destination, signature, previous, answerWithin, result);
        OriginGate.Entry place = gate.enter(origin, trigger, deadline, () -> sent(send, result),
                () -> result.complete(new DeliveryResult.NotStarted("no connection to " + origin + " free in time ("
                        + gate.perOrigin() + " per origin: outbox.webhook.max-connections-per-origin)")));
        result.whenComplete((r, e) -> {
            place.cancel(); // given up on while waiting: its place in the line goes
            if (place.started()) {
                gate.ended(place, r instanceof DeliveryResult.Delivered);
            }
        });
    }

    /** Runs a send that got its place; one that throws still ends as a result. */
    private static void sent(Runnable send, CompletableFuture<DeliveryResult> result) {
        try {
            send.run();
        } catch (RuntimeException e) {
            result.complete(DeliveryResult
                    .failed("webhook delivery could not start: " + WebhookReplies.snippet(e.getMessage())));
        }
    }

    /** The exchange of a delivery that has its place at the origin: past the circuit, signed, sent. */
    private void exchange(ClaimedRow row, Destination destination, WebhookSignature signature,
            WebhookSignature previous,
            Duration answerWithin, CompletableFuture<DeliveryResult> result) {
        String origin = destination.origin();
        WebhookCircuits.Admission admission = circuits.admit(origin);
        if (!admission.send()) {
            result.complete(new DeliveryResult.Failed(admission.reason(), Duration.ofMillis(admission.deferMillis())));
            return;
        }
        URI uri = destination.verdict().uri();
        byte[] body = row.payload().getBytes(StandardCharsets.UTF_8);
        long timestamp = clock.instant().getEpochSecond();
        WebhookClient.Request request = new WebhookClient.Request(uri, body);
        headers(request::header, row, signature, previous, timestamp, body);
        CompletableFuture<WebhookClient.Answer> answer = client.post(request, answerWithin);
        answer.whenComplete((a, e) -> {
            String failure = e == null
                    ? null
                    : WebhookFailures.describe(e, uri.getHost(), answerWithin, connectTimeout);
            circuits.record(origin, admission, e == null || !WebhookFailures.unreachable(e), failure);
            if (e == null) {
                result.complete(
                        WebhookReplies.result(a.status(), a.body(), a.location(), a.retryAfter(), clock.instant()));
            } else {
                result.complete(WebhookFailures.refusal(e) != null
                        ? DeliveryResult.rejected(WebhookFailures.refusal(e))
                        : DeliveryResult.failed(failure));
            }
        });
        result.whenComplete((r, e) -> {
            if (e != null) {
                answer.completeExceptionally(e); // given up on (the dispatcher's timeout): the exchange ends
            }
        });
    }

    /**
     * The signer of the secret a rotation replaced while its overlap lasts on the database clock (the
     * one that signs the timestamp), else null. One that does not parse signs nothing: the new one still does.
     */
    private WebhookSignature previousSignature(ClaimedRow.TriggerTarget trigger) {
        if (trigger.previousSecret() == null || trigger.previousSecretExpiresAt() == null
                || !clock.instant().isBefore(trigger.previousSecretExpiresAt().toInstant())) {
            return null;
        }
        try {
            return signatures.get(trigger.previousSecret());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The circuit of {@code url}'s origin on this node ({@link WebhookCircuits#state}); closed for a URL without one. */
    String circuit(String url) {
        try {
            URI uri = URI.create(url);
            return uri.getHost() == null ? "closed" : circuits.state(origin(uri));
        } catch (IllegalArgumentException e) {
            return "closed";
        }
    }

    /** Scheme, host and port: what one circuit stands for. */
    static String origin(URI uri) {
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        return uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }

    /**
     * The signed headers of one attempt. {@code webhook-id} is the row id, the same on every retry, so
     * receivers can drop duplicates; the timestamp and signature are fresh per attempt. During a secret's
     * overlap ({@code previous} not null) the signature header holds two space-separated signatures, as
     * Standard Webhooks allows: the new secret's first, then the replaced one's.
     */
    static void headers(BiConsumer<String, String> h, ClaimedRow row, WebhookSignature signature,
            WebhookSignature previous,
            long timestamp, byte[] body) {
        String id = row.id().toString();
        h.accept("webhook-id", id);
        h.accept("webhook-timestamp", Long.toString(timestamp));
        String signed = signature.sign(id, timestamp, body);
        h.accept("webhook-signature", previous == null ? signed : signed + " " + previous.sign(id, timestamp, body));
        h.accept("outbox-attempt", Integer.toString(row.attemptCount()));
        h.accept("outbox-trigger-depth", Integer.toString(row.triggerDepth()));
        optional(h, "outbox-app-id", row.appId());
        optional(h, "outbox-source-kind", row.sourceKind());
        optional(h, "outbox-trigger-id", row.triggerId());
        optional(h, "outbox-root-execution-id", row.rootExecutionId());
        if (row.trace() != null) {
            // the producer's W3C trace context, as it came (not signed: tracing tools rewrite it on the way)
            h.accept("traceparent", row.trace().traceparent());
            optional(h, "tracestate", row.trace().tracestate());
        }
    }

    private static void optional(BiConsumer<String, String> h, String name, Object value) {
        if (value != null) {
            h.accept(name, value.toString());
        }
    }
}
