package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.api.OutboxMessage;
import dev.triggeroutbox.api.OutboxProducer;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.CallerGroups;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJBAccessException;
import jakarta.ejb.EJBException;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * {@link OutboxProducer} for other deployments. Joins the caller's transaction (REQUIRED); a
 * failure marks it for rollback, so the caller's business write does not commit without its row.
 */
@Stateless
@RolesAllowed({"outbox-producer", "outbox-admin"})
public class OutboxProducerBean implements OutboxProducer {

    @Inject
    Outbox outbox;

    @Resource
    SessionContext context;

    @Override
    public UUID enqueue(OutboxMessage message) {
        AppId app = new AppId(required(message.appId(), "appId"));
        checkAccess(app);
        NewOutboxRow row = NewOutboxRow.to(app, kind(message.sourceKind()),
                        new TriggerId(required(message.triggerId(), "triggerId")), required(message.payload(), "payload"))
                .withOrigin(context.getCallerPrincipal().getName())
                .withLineage(ExecutionId.ofNullable(message.rootExecutionId()), message.triggerDepth())
                .withMaxAttempts(message.maxAttempts())
                .deliverAt(message.deliverAt());
        try {
            return outbox.enqueue(row).value();
        } catch (SQLException e) {
            throw new EJBException("enqueue failed: " + e.getMessage());
        }
    }

    @Override
    public List<UUID> publish(UUID appId, String sourceKind, String payload) {
        AppId app = new AppId(required(appId, "appId"));
        checkAccess(app);
        try {
            return outbox.publish(app, kind(sourceKind), required(payload, "payload"),
                            context.getCallerPrincipal().getName(), null, 0, null)
                    .stream().map(r -> r.id().value()).toList();
        } catch (SQLException e) {
            throw new EJBException("publish failed: " + e.getMessage());
        }
    }

    private void checkAccess(AppId app) {
        if (!context.isCallerInRole("outbox-admin") && !CallerGroups.isMember(context::isCallerInRole, "app:" + app)) {
            throw new EJBAccessException("caller may not write to app " + app);
        }
    }

    private static SourceKind kind(String wire) {
        return SourceKind.fromWire(wire).orElseThrow(() -> new IllegalArgumentException(
                "unknown source kind '" + wire + "' (known: " + SourceKind.wireNames() + ")"));
    }

    private static <T> T required(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }
}
