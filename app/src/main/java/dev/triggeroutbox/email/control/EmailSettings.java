package dev.triggeroutbox.email.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.rest.control.BodyLimits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * How large an inbound mail may be. A raw message carries its attachments, which the event does
 * not keep, so the email endpoint reads bodies up to {@code outbox.email.max-bytes} (the other
 * endpoints stop at the payload limit); the event made from it must still fit
 * {@code outbox.max-payload-bytes}. Undertow refuses any request body over its own
 * {@code max-post-size} (10 MiB by default) before the application sees it: raise both together.
 */
@ApplicationScoped
public class EmailSettings implements BodyLimits {

    private static final Pattern EMAIL_PATH = Pattern.compile("/?apps/[^/]+/email/?");

    @Inject
    @ConfigProperty(name = "outbox.email.max-bytes", defaultValue = "8388608")
    int maxBytes;

    /** Whether a request path (relative to the API's base) is the email endpoint's. */
    public boolean isEmailPath(String path) {
        return EMAIL_PATH.matcher(path).matches();
    }

    public int maxBytes() {
        return maxBytes;
    }

    /** Mail is asked before the outbox's limit for every other call. */
    @Override
    public int order() {
        return 0;
    }

    @Override
    public Limit limitFor(String path) {
        return isEmailPath(path) ? new Limit(maxBytes, this::tooLarge) : null;
    }

    public OutboxRefusedException tooLarge() {
        return OutboxRefusedException.tooLarge(
                "the message exceeds the limit of " + maxBytes + " bytes (outbox.email.max-bytes)");
    }
}
