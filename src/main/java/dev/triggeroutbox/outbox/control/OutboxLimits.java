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

    /** The largest payload, as UTF-8 JSON text, a row may carry. */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    /** The largest request body the REST API reads: a payload plus its envelope. */
    public int maxBodyBytes() {
        return maxPayloadBytes + ENVELOPE_BYTES;
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
