package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.rest.control.BodyLimits;
import dev.triggeroutbox.rest.control.StorableJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import java.time.OffsetDateTime;
import java.time.Period;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Limits every producer (REST or Java) is held to. */
@ApplicationScoped
public class OutboxLimits implements BodyLimits {

    /** Room for the envelope around a payload in a request body (ids, kind, times). */
    public static final int ENVELOPE_BYTES = 8 * 1024;

    /**
     * How far from now a {@code deliverAt} may lie, both ways: far enough for any real schedule, and
     * well inside what PostgreSQL's {@code timestamptz} and Java's clocks can hold and compute with.
     */
    public static final Period DELIVER_AT_WINDOW = Period.ofYears(10);

    /** The largest payload, as UTF-8 JSON text, a row may carry; also the largest REST body, with {@link #ENVELOPE_BYTES}. */
    @Inject
    @ConfigProperty(name = "outbox.max-payload-bytes", defaultValue = "262144")
    int maxPayloadBytes;

    /** Cascades deeper than this are refused or dead-lettered: the loop guard. */
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

    /** Asked after the features with paths of their own: this one has a limit for every call. */
    @Override
    public int order() {
        return 100;
    }

    /** A batch call ({@code …:batch}) reads up to {@link #maxBatchBytes()}, every other call {@link #maxBodyBytes()}. */
    @Override
    public Limit limitFor(String path) {
        if (path.endsWith(":batch")) {
            return new Limit(maxBatchBytes, () -> OutboxRefusedException.tooLarge(
                    "the request body exceeds the limit of " + maxBatchBytes
                            + " bytes for a batch (outbox.max-batch-bytes)"));
        }
        return new Limit(maxBodyBytes(), () -> OutboxRefusedException.tooLarge(maxBodyBytes()));
    }

    /** Refuses a batch of the Java API that is empty or over {@code outbox.max-batch-events}. */
    public void checkBatchSize(int size) {
        if (size < 1 || size > maxBatchEvents) {
            throw new IllegalArgumentException("a batch holds 1 to " + maxBatchEvents
                    + " events or rows (outbox.max-batch-events), not " + size);
        }
    }

    /** Cascades deeper than this are refused ({@code UNPROCESSABLE}) or dead-lettered (rows): the loop guard. */
    public int maxTriggerDepth() {
        return maxTriggerDepth;
    }

    /**
     * A payload from a REST caller as JSON text, after the checks every producer call makes: storable in
     * {@code jsonb} ({@code INVALID}), the size limit ({@code TOO_LARGE}) and the loop guard ({@code UNPROCESSABLE}).
     * {@code depth} may be null.
     */
    public String payloadText(JsonValue payload, Integer depth) {
        String text = payload.toString();
        check(text, depth == null ? 0 : depth, null);
        return text;
    }

    /** The checks of every producer call, for one row: payload, depth, {@code deliverAt}. */
    public void check(NewOutboxRow row) {
        check(row.payload(), row.triggerDepth(), row.deliverAt());
    }

    /** The checks of every producer call: the payload as JSON text, the depth, and {@code deliverAt} (may be null). */
    public void check(String payload, int depth, OffsetDateTime deliverAt) {
        StorableJson.Check json = StorableJson.check(payload);
        if (!json.storable()) {
            throw OutboxRefusedException.invalid("payload", json.problem());
        }
        if (json.storedBytes() > maxPayloadBytes) {
            throw OutboxRefusedException.tooLarge(
                    "the payload exceeds the limit of " + maxPayloadBytes + " bytes (outbox.max-payload-bytes)");
        }
        String late = deliverAtProblem(deliverAt);
        if (late != null) {
            throw OutboxRefusedException.invalid("deliverAt", late);
        }
        if (depth > maxTriggerDepth) {
            throw OutboxRefusedException.unprocessable("trigger-depth-exceeded", "triggerDepth " + depth
                    + " exceeds the maximum of " + maxTriggerDepth
                    + " (outbox.max-trigger-depth): the cascade stops here");
        }
    }

    /** Why a {@code deliverAt} is refused (outside now ± {@link #DELIVER_AT_WINDOW}), or null (also for none). */
    public static String deliverAtProblem(OffsetDateTime at) {
        if (at == null) {
            return null;
        }
        OffsetDateTime now = OffsetDateTime.now(at.getOffset());
        if (at.isAfter(now.plus(DELIVER_AT_WINDOW)) || at.isBefore(now.minus(DELIVER_AT_WINDOW))) {
            return "must lie within 10 years of now";
        }
        return null;
    }
}
