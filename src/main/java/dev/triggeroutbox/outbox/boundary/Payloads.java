package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;

/** The fields every REST producer call shares, how its writes fail, and how a publish answers. */
public final class Payloads {

    /** The event fields of a publish or enqueue body, as read; {@link #payloadText} after the checks. */
    record Event(SourceKind kind, JsonValue payload, ExecutionId root, Integer depth, OffsetDateTime deliverAt) {

        static final Set<String> FIELDS = Set.of("sourceKind", "payload", "rootExecutionId", "triggerDepth", "deliverAt");

        /** Reads the shared fields; errors are collected in {@code b} and thrown by its validate(). */
        static Event read(JsonBody b) {
            OffsetDateTime deliverAt = b.time("deliverAt", false);
            String late = OutboxLimits.deliverAtProblem(deliverAt);
            if (late != null) {
                b.error("deliverAt", late);
            }
            return new Event(b.sourceKind("sourceKind", true), b.any("payload", true),
                    b.parsed("rootExecutionId", false, ExecutionId::parse, "must be a UUID"),
                    b.integer("triggerDepth", false, 0, Integer.MAX_VALUE), deliverAt);
        }

        int triggerDepth() {
            return depth == null ? 0 : depth;
        }

        /** The payload as JSON text, after the checks of {@link OutboxLimits#payloadText}. */
        String payloadText(OutboxLimits limits) {
            return limits.payloadText(payload, depth);
        }
    }

    /** A write that may fail in the database. */
    public interface Write<T> {
        T run() throws SQLException;
    }

    private Payloads() {
    }

    /** Runs a write; a database failure is the server's problem, not the client's. */
    public static <T> T write(Write<T> write) {
        try {
            return write.run();
        } catch (SQLException e) {
            throw new IllegalStateException("outbox write failed", e);
        }
    }

    /** A publish's answer: 202 with the rows written, one per matching trigger. */
    public static IdempotencyKeys.Answer published(List<OutboxWriter.FannedOut> rows) {
        JsonArrayBuilder list = Jsons.array();
        rows.forEach(r -> list.add(Jsons.object().add("id", r.id().toString()).add("triggerId", r.triggerId().toString())));
        return new IdempotencyKeys.Answer(202, null, Jsons.object().add("rows", list).build().toString());
    }
}
