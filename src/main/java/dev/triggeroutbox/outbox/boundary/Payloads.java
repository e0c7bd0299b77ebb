package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.JsonBody;
import jakarta.json.JsonValue;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Set;

/** The fields every REST producer call shares, and how its writes fail. */
final class Payloads {

    /** The event fields of a publish or enqueue body, as read; {@link #payloadText} after the checks. */
    record Event(SourceKind kind, JsonValue payload, ExecutionId root, Integer depth, OffsetDateTime deliverAt) {

        static final Set<String> FIELDS = Set.of("sourceKind", "payload", "rootExecutionId", "triggerDepth", "deliverAt");

        /** Reads the shared fields; errors are collected in {@code b} and thrown by its validate(). */
        static Event read(JsonBody b) {
            return new Event(b.sourceKind("sourceKind", true), b.any("payload", true),
                    b.parsed("rootExecutionId", false, ExecutionId::parse, "must be a UUID"),
                    b.integer("triggerDepth", false, 0, Integer.MAX_VALUE), b.time("deliverAt", false));
        }

        int triggerDepth() {
            return depth == null ? 0 : depth;
        }

        /** The payload as JSON text, after the size limit and the loop guard. */
        String payloadText(OutboxLimits limits) {
            return limits.payloadText(payload, depth);
        }
    }

    /** A write that may fail in the database. */
    interface Write<T> {
        T run() throws SQLException;
    }

    private Payloads() {
    }

    /** Runs a write; a database failure is the server's problem, not the client's. */
    static <T> T write(Write<T> write) {
        try {
            return write.run();
        } catch (SQLException e) {
            throw new IllegalStateException("outbox write failed", e);
        }
    }
}
