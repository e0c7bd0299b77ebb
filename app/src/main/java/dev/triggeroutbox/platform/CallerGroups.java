package dev.triggeroutbox.platform;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.security.enterprise.SecurityContext;
import java.security.Principal;
import java.util.function.Predicate;

/**
 * Whether the caller belongs to a group that is not a declared role, such as {@code app:<uuid>}.
 * WildFly answers {@code isUserInRole} for any group name of the caller. Payara answers it only for
 * roles web.xml declares (its authorization policy is built from them), so there the group is looked
 * for among the caller's principals (Jakarta Security), where Payara's realms put a caller's groups.
 */
public final class CallerGroups {

    private CallerGroups() {
    }

    /** @param inRole the container's role check of the current call (JAX-RS or EJB) */
    public static boolean isMember(Predicate<String> inRole, String group) {
        return inRole.test(group) || amongPrincipals(group);
    }

    private static boolean amongPrincipals(String group) {
        Instance<SecurityContext> security = CDI.current().select(SecurityContext.class);
        if (!security.isResolvable()) {
            return false;
        }
        SecurityContext caller = security.get();
        Principal user = caller.getCallerPrincipal();
        if (user == null) {
            return false;
        }
        // a principal other than the caller's own name (a user could be called like a group)
        return caller.getPrincipalsByType(Principal.class).stream()
                .anyMatch(p -> group.equals(p.getName()) && !p.getName().equals(user.getName()));
    }
}
