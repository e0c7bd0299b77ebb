package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Adds trigger changes (create, replace, delete, secret rotation, hold and release under {@code /apps/{appId}/triggers}) to the admin
 * audit record once they succeeded. It runs after the change committed, so the triggers component
 * stays unaware of auditing; a record that cannot be written is logged, the change stands.
 */
@Provider
public class TriggerAudit implements ContainerResponseFilter {

    private static final Logger LOG = Logger.getLogger(TriggerAudit.class.getName());
    /** A trigger collection, one trigger, or its secret, hold or release (group 1: the trigger id, group 2: which of those). */
    private static final Pattern TRIGGERS = Pattern
            .compile("/?apps/[^/]+/triggers(?:/([^/]+)(/secret|/hold|/release)?)?/?");

    @Inject
    AuditLog audit;

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) throws IOException {
        int status = response.getStatus();
        if (status < 200 || status > 299 || request.getSecurityContext().getUserPrincipal() == null
                || response.getHeaders().containsKey(IdempotencyKeys.REPLAYED)) { // a repeat changed nothing
            return;
        }
        Matcher path = TRIGGERS.matcher(request.getUriInfo().getPath());
        if (!path.matches()) {
            return;
        }
        boolean one = path.group(1) != null && path.group(2) == null;
        String action = switch (request.getMethod()) {
            case "POST" -> path.group(1) == null
                    ? AuditLog.TRIGGER_CREATE
                    : path.group(2) == null
                            ? null
                            : switch (path.group(2)) {
                                case "/secret" -> AuditLog.TRIGGER_ROTATE_SECRET;
                                case "/hold" -> AuditLog.TRIGGER_HOLD;
                                default -> AuditLog.TRIGGER_RELEASE;
                            };
            case "PUT" -> one ? AuditLog.TRIGGER_REPLACE : null;
            case "DELETE" -> one ? AuditLog.TRIGGER_DELETE : null;
            default -> null;
        };
        if (action == null) {
            return;
        }
        String id = path.group(1);
        URI location = response.getLocation();
        if (id == null && location != null) {
            String p = location.getPath();
            id = p.substring(p.lastIndexOf('/') + 1);
        }
        try {
            List<UUID> targets = id == null ? List.of() : List.of(UUID.fromString(id));
            audit.record(Callers.name(request.getSecurityContext()), action, targets, null, 1);
        } catch (RuntimeException e) { // a StoreException too
            LOG.log(Level.WARNING, "trigger change by " + Callers.name(request.getSecurityContext())
                    + " not added to the audit record", e);
        }
    }
}
