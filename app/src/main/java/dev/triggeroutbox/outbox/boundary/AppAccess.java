package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.platform.CallerGroups;
import dev.triggeroutbox.rest.control.Callers;
import jakarta.ws.rs.core.SecurityContext;

/**
 * Who may reach which app. Admins reach every app; a producer reaches the apps named by its
 * {@code app:<uuid>} groups (the realm maps groups to roles). Any other app answers 404, exactly as
 * an app that does not exist, so a caller learns nothing about other tenants.
 */
public final class AppAccess {

    private AppAccess() {
    }

    public static boolean mayReach(SecurityContext caller, AppId app) {
        return caller.isUserInRole(Callers.ADMIN) || CallerGroups.isMember(caller::isUserInRole, "app:" + app.value());
    }

    public static void requireApp(SecurityContext caller, AppId app) {
        if (!mayReach(caller, app)) {
            throw OutboxRefusedException.notFound("app " + app);
        }
    }
}
