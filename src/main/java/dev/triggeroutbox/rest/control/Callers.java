package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.platform.CallerGroups;
import jakarta.ws.rs.core.SecurityContext;

/**
 * Who may reach which app. Admins reach every app; a producer reaches the apps named by its
 * {@code app:<uuid>} groups (the realm maps groups to roles). Any other app answers 404, exactly as
 * an app that does not exist, so a caller learns nothing about other tenants.
 */
public final class Callers {

    public static final String ADMIN = "outbox-admin";
    public static final String PRODUCER = "outbox-producer";

    private Callers() {
    }

    public static boolean mayReach(SecurityContext caller, AppId app) {
        return caller.isUserInRole(ADMIN) || CallerGroups.isMember(caller::isUserInRole, "app:" + app.value());
    }

    public static void requireApp(SecurityContext caller, AppId app) {
        if (!mayReach(caller, app)) {
            throw ApiException.notFound("app " + app);
        }
    }

    public static String name(SecurityContext caller) {
        return caller.getUserPrincipal() == null ? null : caller.getUserPrincipal().getName();
    }

    /** Parses an id from the path; a malformed one is simply not found. */
    public static <T> T pathId(String text, java.util.function.Function<String, T> parse, String what) {
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound(what + " " + text);
        }
    }
}
