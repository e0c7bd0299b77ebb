package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import jakarta.ws.rs.core.SecurityContext;

/**
 * The callers of the REST API: the two roles, a caller's name, and ids read from a path. Which apps a caller
 * reaches is {@code outbox.boundary.AppAccess}'s concern.
 */
public final class Callers {

    public static final String ADMIN = "outbox-admin";
    public static final String PRODUCER = "outbox-producer";

    private Callers() {
    }

    public static String name(SecurityContext caller) {
        return caller.getUserPrincipal() == null ? null : caller.getUserPrincipal().getName();
    }

    /** Parses an id from the path; a malformed one is simply not found. */
    public static <T> T pathId(String text, java.util.function.Function<String, T> parse, String what) {
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            throw OutboxRefusedException.notFound(what + " " + text);
        }
    }
}
