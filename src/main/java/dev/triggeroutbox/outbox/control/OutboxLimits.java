package dev.triggeroutbox.outbox.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
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
}
