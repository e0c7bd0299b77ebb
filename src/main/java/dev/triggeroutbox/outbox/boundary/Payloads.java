package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.rest.control.ApiException;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;

/** The checks every REST producer call makes on an event before writing it. */
final class Payloads {

    /** A write that may fail in the database. */
    interface Write<T> {
        T run() throws SQLException;
    }

    private Payloads() {
    }

    /** The payload as JSON text, after the size limit and the loop guard. */
    static String check(JsonValue payload, Integer depth, OutboxLimits limits) {
        String text = payload.toString();
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
