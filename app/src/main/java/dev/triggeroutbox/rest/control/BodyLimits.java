package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import java.util.function.Supplier;

/**
 * A feature's limits on the size of request bodies, for the paths it serves. The REST layer's body filter asks
 * every feature's, in {@link #order()}, and applies the first limit it gets.
 */
public interface BodyLimits {

    /** A limit in bytes, and how to make the refusal a larger body gets (413): made only when a body is refused. */
    record Limit(int bytes, Supplier<OutboxRefusedException> tooLarge) {
    }

    /** Features with a lower order are asked first: one with paths of its own before one with a limit for all. */
    int order();

    /** The limit for a request to {@code path} (relative to the API's root), or null when this feature sets none. */
    Limit limitFor(String path);
}
