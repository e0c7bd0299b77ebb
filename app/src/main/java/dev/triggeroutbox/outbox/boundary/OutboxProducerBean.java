package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.api.OutboxMessage;
import dev.triggeroutbox.api.OutboxProducer;
import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.api.OutboxUnavailableException;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.CallerGroups;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJBAccessException;
import jakarta.ejb.EJBException;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@link OutboxProducer} for other deployments. Joins the caller's transaction (REQUIRED); a
 * failure marks it for rollback, so the caller's business write does not commit without its row.
 * Held to the limits of every producer ({@link Outbox}); a refusal is an
 * {@link IllegalArgumentException} saying which value and why.
 */
@Stateless
@RolesAllowed({"outbox-producer", "outbox-admin"})
public class OutboxProducerBean implements OutboxProducer {

    private static final Logger LOG = Logger.getLogger(OutboxProducerBean.class.getName());

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
                .deliverAt(message.deliverAt())
                .withOrderingKey(message.orderingKey());
        try (CurrentTrace.Scope trace = CurrentTrace
                .open(TraceContext.parse(message.traceparent(), message.tracestate()))) {
            return outbox.enqueue(row).value();
        } catch (OutboxRefusedException e) {
            throw refused(e);
        } catch (OutboxUnavailableException e) {
            throw databaseFailure("enqueue", e);
        }
    }

    @Override
    public List<UUID> publish(UUID appId, String sourceKind, String payload) {
        return publish(appId, sourceKind, payload, null);
    }

    @Override
    public List<UUID> publish(UUID appId, String sourceKind, String payload, String orderingKey) {
        AppId app = new AppId(required(appId, "appId"));
        checkAccess(app);
        try {
            return outbox.publish(app, kind(sourceKind), required(payload, "payload"),
                    context.getCallerPrincipal().getName(), null, 0, null, orderingKey)
                    .stream().map(r -> r.id().value()).toList();
        } catch (OutboxRefusedException e) {
            throw refused(e);
        } catch (OutboxUnavailableException e) {
            throw databaseFailure("publish", e);
        }
    }

    /**
     * A refusal as the JDK exception remote callers have always been given: their clients catch it, and an
     * IllegalArgumentException needs no class of ours on the other side of the wire.
     */
    private static IllegalArgumentException refused(OutboxRefusedException e) {
        return new IllegalArgumentException(e.getMessage());
    }

    /**
     * The database's own text stays in the server log: it can carry SQL, table names and the values
     * of other rows. The caller gets a fixed sentence and an incident id to quote.
     */
    private static EJBException databaseFailure(String call, OutboxUnavailableException e) {
        String incident = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, "incident " + incident + ": " + call + " failed in the database", e);
        return new EJBException(call + " failed: the outbox could not write to its database (incident " + incident
                + ", see the server log)");
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
