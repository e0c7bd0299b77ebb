package dev.triggeroutbox.api;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One delivery attempt of one outbox row, as a handler receives it.
 *
 * @param id              the outbox row; stable across retries, so handlers can deduplicate on it
 * @param appId           the app the row belongs to
 * @param sourceKind      the wire name of the source kind ({@code http}, {@code kv}, ...)
 * @param triggerId       the trigger being delivered
 * @param scriptId        the trigger's script, if any
 * @param payload         the event as JSON text
 * @param attempt         1 on the first attempt
 * @param maxAttempts     attempts allowed before the row is dead-lettered
 * @param triggerDepth    0 for an event from outside, +1 per cascade step
 * @param rootExecutionId the execution that started the cascade
 * @param originPrincipal who enqueued it, if known
 * @param createdAt       when it was enqueued
 * @param traceparent     the W3C {@code traceparent} the row was written with, or null; a handler that calls
 *                        another system passes it on to join the producer's trace
 * @param tracestate      the W3C {@code tracestate} that came with it, or null
 */
public record OutboxDelivery(
        UUID id,
        UUID appId,
        String sourceKind,
        UUID triggerId,
        UUID scriptId,
        String payload,
        int attempt,
        int maxAttempts,
        int triggerDepth,
        UUID rootExecutionId,
        String originPrincipal,
        OffsetDateTime createdAt,
        String traceparent,
        String tracestate) {

    /** A delivery without a trace context. */
    public OutboxDelivery(UUID id, UUID appId, String sourceKind, UUID triggerId, UUID scriptId, String payload,
            int attempt, int maxAttempts, int triggerDepth, UUID rootExecutionId, String originPrincipal,
            OffsetDateTime createdAt) {
        this(id, appId, sourceKind, triggerId, scriptId, payload, attempt, maxAttempts, triggerDepth, rootExecutionId,
                originPrincipal, createdAt, null, null);
    }
}
