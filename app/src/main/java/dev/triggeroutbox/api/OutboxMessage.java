package dev.triggeroutbox.api;

import java.io.Serializable;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One row to enqueue through {@link OutboxProducer}, from another deployment. Plain serializable
 * JDK types only, so the caller needs nothing but this package.
 */
public final class OutboxMessage implements Serializable {

    private static final long serialVersionUID = 1L;

    private final UUID appId;
    private final String sourceKind;
    private final UUID triggerId;
    private final String payload;
    private int triggerDepth;
    private UUID rootExecutionId;
    private OffsetDateTime deliverAt;
    private Integer maxAttempts;
    private String traceparent;
    private String tracestate;
    private String orderingKey;

    /**
     * @param appId      the app whose trigger this is
     * @param sourceKind the wire name ({@code http, kv, docs, dead_letter, cron, files, pubsub, email, invoke})
     * @param triggerId  the trigger to deliver to
     * @param payload    the event as JSON text
     */
    public OutboxMessage(UUID appId, String sourceKind, UUID triggerId, String payload) {
        this.appId = appId;
        this.sourceKind = sourceKind;
        this.triggerId = triggerId;
        this.payload = payload;
    }

    public OutboxMessage lineage(UUID root, int depth) {
        this.rootExecutionId = root;
        this.triggerDepth = depth;
        return this;
    }

    public OutboxMessage deliverAt(OffsetDateTime at) {
        this.deliverAt = at;
        return this;
    }

    public OutboxMessage maxAttempts(Integer attempts) {
        this.maxAttempts = attempts;
        return this;
    }

    /**
     * The W3C trace context the row carries to its deliveries (a malformed {@code traceparent} is ignored,
     * a malformed {@code tracestate} dropped). Without it the row carries none.
     */
    public OutboxMessage traceContext(String parent, String state) {
        this.traceparent = parent;
        this.tracestate = state;
        return this;
    }

    /**
     * The lane the row joins (1 to 200 characters; null: none): it is delivered after every earlier row of its
     * trigger with the same key, one at a time.
     */
    public OutboxMessage orderingKey(String key) {
        this.orderingKey = key;
        return this;
    }

    public UUID appId() {
        return appId;
    }

    public String sourceKind() {
        return sourceKind;
    }

    public UUID triggerId() {
        return triggerId;
    }

    public String payload() {
        return payload;
    }

    public int triggerDepth() {
        return triggerDepth;
    }

    public UUID rootExecutionId() {
        return rootExecutionId;
    }

    public OffsetDateTime deliverAt() {
        return deliverAt;
    }

    public Integer maxAttempts() {
        return maxAttempts;
    }

    public String traceparent() {
        return traceparent;
    }

    public String tracestate() {
        return tracestate;
    }

    public String orderingKey() {
        return orderingKey;
    }
}
