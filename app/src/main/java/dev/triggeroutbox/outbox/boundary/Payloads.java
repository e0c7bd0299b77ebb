package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.api.OutboxRefusedException.FieldError;
import dev.triggeroutbox.api.OutboxRefusedException.Reason;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OrderingKey;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The fields every REST producer call shares, how its writes fail, and how a publish answers. */
public final class Payloads {

    /** Reads the source kind {@code name} of {@code b} by its wire name; an error is collected in {@code b}. */
    public static SourceKind sourceKind(JsonBody b, String name, boolean required) {
        return b.parsed(name, required, w -> SourceKind.fromWire(w).orElseThrow(IllegalArgumentException::new),
                "must be one of " + SourceKind.wireNames());
    }

    /** The event fields of a publish or enqueue body, as read; {@link #payloadText} after the checks. */
    record Event(SourceKind kind, JsonValue payload, ExecutionId root, Integer depth, OffsetDateTime deliverAt,
            String orderingKey) {

        static final Set<String> FIELDS = Set.of("sourceKind", "payload", "rootExecutionId", "triggerDepth",
                "deliverAt",
                "orderingKey");

        /** Reads the shared fields; errors are collected in {@code b} and thrown by its validate(). */
        static Event read(JsonBody b) {
            OffsetDateTime deliverAt = b.time("deliverAt", false);
            String late = OutboxLimits.deliverAtProblem(deliverAt);
            if (late != null) {
                b.error("deliverAt", late);
            }
            String orderingKey = b.string("orderingKey", false);
            String keyProblem = OrderingKey.problem(orderingKey);
            if (keyProblem != null) {
                b.error("orderingKey", keyProblem);
            }
            return new Event(sourceKind(b, "sourceKind", true), b.any("payload", true),
                    b.parsed("rootExecutionId", false, ExecutionId::parse, "must be a UUID"),
                    b.integer("triggerDepth", false, 0, Integer.MAX_VALUE), deliverAt, orderingKey);
        }

        int triggerDepth() {
            return depth == null ? 0 : depth;
        }

        /** The payload as JSON text, after the checks of {@link OutboxLimits#payloadText}. */
        String payloadText(OutboxLimits limits) {
            return limits.payloadText(payload, depth);
        }

        /**
         * The payload as JSON text after the same checks, for the {@code index}-th event of a batch: a
         * refusal names the event ({@code events[i].payload}, {@code events[i].triggerDepth}).
         */
        String payloadText(OutboxLimits limits, int index) {
            try {
                return payloadText(limits);
            } catch (OutboxRefusedException e) {
                throw inBatch(e, index);
            }
        }

        /** As a batch's event, checked. */
        NewEvent toNew(OutboxLimits limits, int index) {
            return new NewEvent(kind, payloadText(limits, index), root, triggerDepth(), deliverAt, orderingKey);
        }
    }

    /** The fields of a row of {@code POST /outbox} (and of each row of its batch), as read. */
    record Row(AppId app, TriggerId trigger, ScriptId script, OutboxId replyTo, Event event) {

        static final Set<String> FIELDS = Stream.concat(Stream.of("appId", "triggerId", "scriptId", "replyTo"),
                Event.FIELDS.stream()).collect(Collectors.toUnmodifiableSet());

        /** Reads a row's fields; errors are collected in {@code b} and thrown by its validate(). */
        static Row read(JsonBody b) {
            return new Row(b.parsed("appId", true, AppId::parse, "must be a UUID"),
                    b.parsed("triggerId", false, TriggerId::parse, "must be a UUID"),
                    b.parsed("scriptId", false, ScriptId::parse, "must be a UUID"),
                    b.parsed("replyTo", false, OutboxId::parse, "must be a UUID"),
                    Event.read(b));
        }

        /** The row to write, with its checked payload text, written by {@code origin}. */
        NewOutboxRow toNew(String payloadText, String origin) {
            return new NewOutboxRow(app, event.kind(), trigger, script, replyTo, payloadText, origin,
                    event.triggerDepth(), event.root(), null, event.deliverAt(), null, event.orderingKey());
        }
    }

    /** The one field of a batch body: {@code {"events": [...]}}. */
    static final String BATCH_FIELD = "events";

    /**
     * The items of a batch body, each read with the same error list (fields named {@code events[i].x}).
     * Refuses a batch that is empty (400) or longer than {@code outbox.max-batch-events} (413, before
     * any item is read). None when the field is missing or not an array of objects (reported in {@code b}).
     */
    static List<JsonBody> batch(JsonBody b, JsonValue body, Set<String> itemFields, OutboxLimits limits) {
        JsonValue items = body.asJsonObject().get(BATCH_FIELD);
        if (items != null && items.getValueType() == JsonValue.ValueType.ARRAY) {
            int size = items.asJsonArray().size();
            if (size > limits.maxBatchEvents()) {
                throw new OutboxRefusedException(Reason.TOO_LARGE, "batch-too-large", "Batch too large",
                        "the batch has " + size
                                + " events; the limit is " + limits.maxBatchEvents() + " (outbox.max-batch-events)");
            }
            if (size == 0) {
                b.error(BATCH_FIELD, "must hold at least one event");
            }
        }
        List<JsonBody> read = b.objects(BATCH_FIELD, true, itemFields);
        return read == null ? List.of() : read;
    }

    /** A refusal of one event's checks, told as the {@code index}-th event's. */
    static OutboxRefusedException inBatch(OutboxRefusedException e, int index) {
        String prefix = BATCH_FIELD + "[" + index + "].";
        List<FieldError> errors = e.errors().isEmpty()
                ? List.of(new OutboxRefusedException.FieldError(
                        prefix + ("trigger-depth-exceeded".equals(e.type()) ? "triggerDepth" : "payload"),
                        e.getMessage()))
                : e.errors().stream().map(f -> new OutboxRefusedException.FieldError(prefix + f.field(), f.message()))
                        .toList();
        return new OutboxRefusedException(e.reason(), e.type(), e.title(),
                BATCH_FIELD + "[" + index + "]: " + e.getMessage(), errors,
                e.retryAfter().orElse(null));
    }

    private Payloads() {
    }

    /**
     * Runs a producer call's {@code work} once per {@code Idempotency-Key}, in the key's transaction; without
     * a key runs it as it is, outside any JTA transaction (its write is atomic by itself), and never writes
     * out the body for a fingerprint.
     */
    static IdempotencyKeys.Answer once(IdempotencyKeys idempotency, SecurityContext caller, UriInfo uri, String key,
            JsonValue body, Supplier<IdempotencyKeys.Answer> work) {
        if (key == null) {
            return work.get();
        }
        return idempotency.once(Callers.name(caller), key, "POST", uri.getPath(), body.toString(), work);
    }

    /**
     * Makes the W3C trace context of a call's {@code traceparent} and {@code tracestate} headers current for
     * the rows it writes, until the scope is closed. A header that came more than once is ignored for
     * {@code traceparent} (the recommendation's rule) and joined for {@code tracestate}; a malformed context
     * is no context, never a refusal.
     */
    public static CurrentTrace.Scope traced(List<String> traceparent, List<String> tracestate) {
        if (traceparent == null || traceparent.size() != 1) {
            return CurrentTrace.open(null);
        }
        return CurrentTrace.open(TraceContext.parse(traceparent.get(0),
                tracestate == null || tracestate.isEmpty() ? null : String.join(",", tracestate)));
    }

    /** A publish's answer: 202 with the rows written, one per matching trigger. */
    public static IdempotencyKeys.Answer published(List<OutboxWriter.FannedOut> rows) {
        JsonArrayBuilder list = Jsons.array();
        rows.forEach(
                r -> list.add(Jsons.object().add("id", r.id().toString()).add("triggerId", r.triggerId().toString())));
        return new IdempotencyKeys.Answer(202, null, Jsons.object().add("rows", list).build().toString());
    }

    /**
     * A batch's answer: 202 with every row written, each with its event's position in the batch. Written
     * out directly (numbers and UUIDs need no escaping): for 1,000 rows, building JSON-P objects and
     * printing them cost as much as the rest of the call.
     */
    public static IdempotencyKeys.Answer batchWritten(List<OutboxWriter.Written> rows) {
        StringBuilder json = new StringBuilder(32 + rows.size() * 96).append("{\"rows\":[");
        for (int i = 0; i < rows.size(); i++) {
            OutboxWriter.Written r = rows.get(i);
            json.append(i == 0 ? "" : ",").append("{\"event\":").append(r.event()).append(",\"id\":\"").append(r.id())
                    .append('"');
            if (r.triggerId() != null) {
                json.append(",\"triggerId\":\"").append(r.triggerId()).append('"');
            }
            json.append('}');
        }
        return new IdempotencyKeys.Answer(202, null, json.append("]}").toString());
    }
}
