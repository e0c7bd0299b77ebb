package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.ApiException;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Set;

/** The fields every REST producer call shares, and the checks it makes on an event before writing it. */
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
            return check(payload, depth, limits);
        }
    }

    /** A write that may fail in the database. */
    interface Write<T> {
        T run() throws SQLException;
    }

    private Payloads() {
    }

    /** The payload as JSON text, after the size limit and the loop guard. */
    static String check(JsonValue payload, Integer depth, OutboxLimits limits) {
        String text = payload.toString();
        if (text.contains("\\u0000")) {
            throw ApiException.invalid("payload", "must not contain the NUL character (\\u0000), which PostgreSQL cannot store");
        }
        if (text.getBytes(StandardCharsets.UTF_8).length > limits.maxPayloadBytes()) {
            throw new ApiException(413, "payload-too-large", "Payload too large",
                    "the payload exceeds the limit of " + limits.maxPayloadBytes() + " bytes (outbox.max-payload-bytes)");
        }
        if (depth != null && depth > limits.maxTriggerDepth()) {
            throw ApiException.unprocessable("trigger-depth-exceeded", "triggerDepth " + depth
                    + " exceeds the maximum of " + limits.maxTriggerDepth() + " (outbox.max-trigger-depth): the cascade stops here");
        }
        return text;
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
