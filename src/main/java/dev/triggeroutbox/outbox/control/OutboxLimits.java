package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.rest.control.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Limits every producer (REST or Java) is held to. */
@ApplicationScoped
public class OutboxLimits {

    /** Room for the envelope around a payload in a request body (ids, kind, times). */
    public static final int ENVELOPE_BYTES = 8 * 1024;

    @Inject
    @ConfigProperty(name = "outbox.max-payload-bytes", defaultValue = "262144")
    int maxPayloadBytes;

    @Inject
    @ConfigProperty(name = "outbox.max-trigger-depth", defaultValue = "8")
    int maxTriggerDepth;

    /**
     * Most events (or rows) one batch call may carry. A batch is one statement and one transaction:
     * larger batches write faster per row but hold their locks, their memory (every payload of the
     * batch at once) and the caller's wait longer; a refused batch is refused whole. At least 1.
     */
    @Inject
    @ConfigProperty(name = "outbox.max-batch-events", defaultValue = "1000")
    int maxBatchEvents;

    /**
     * Largest request body of a batch call, in bytes (each event is still held to
     * {@code outbox.max-payload-bytes}). The whole body is read into memory before it is checked, so this
     * bounds what one call costs the node; WildFly's Undertow refuses bodies over its {@code max-post-size}
     * (10 MiB by default) first.
     */
    @Inject
    @ConfigProperty(name = "outbox.max-batch-bytes", defaultValue = "8388608")
    int maxBatchBytes;

    /** The largest payload, as UTF-8 JSON text, a row may carry. */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    /** The largest request body the REST API reads: a payload plus its envelope. */
    public int maxBodyBytes() {
        return maxPayloadBytes + ENVELOPE_BYTES;
    }

    /** Most events or rows of one batch call. */
    public int maxBatchEvents() {
        return maxBatchEvents;
    }

    /** The largest request body a batch call reads. */
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    /** Refuses a batch of the Java API that is empty or over {@code outbox.max-batch-events}. */
    public void checkBatchSize(int size) {
        if (size < 1 || size > maxBatchEvents) {
            throw new IllegalArgumentException("a batch holds 1 to " + maxBatchEvents
                    + " events or rows (outbox.max-batch-events), not " + size);
        }
    }

    /** Cascades deeper than this are refused (REST: 422) or dead-lettered (rows): the loop guard. */
    public int maxTriggerDepth() {
        return maxTriggerDepth;
    }

    /**
     * A payload from a REST caller as JSON text, after the checks every producer call makes: no
     * NUL character (PostgreSQL cannot store it), the size limit (413) and the loop guard (422).
     * {@code depth} may be null (not given).
     */
    public String payloadText(JsonValue payload, Integer depth) {
        String text = payload.toString();
        if (text.contains("\\u0000")) {
            throw ApiException.invalid("payload", "must not contain the NUL character (\\u0000), which PostgreSQL cannot store");
        }
        if (text.getBytes(StandardCharsets.UTF_8).length > maxPayloadBytes) {
            throw new ApiException(413, "payload-too-large", "Payload too large",
                    "the payload exceeds the limit of " + maxPayloadBytes + " bytes (outbox.max-payload-bytes)");
        }
        if (depth != null && depth > maxTriggerDepth) {
            throw ApiException.unprocessable("trigger-depth-exceeded", "triggerDepth " + depth
                    + " exceeds the maximum of " + maxTriggerDepth + " (outbox.max-trigger-depth): the cascade stops here");
        }
        return text;
    }
}
