package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.outbox.boundary.Payloads;
import dev.triggeroutbox.outbox.control.CancelFilter;
import dev.triggeroutbox.outbox.control.Cancellations;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OrderingKey;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.time.OffsetDateTime;
import java.util.Set;

/**
 * {@code POST /admin/outbox/cancel}: cancels the outbox rows that match a filter, at most {@link #MAX_BULK} per
 * call, audited with the filter and the count in the same transaction.
 */
@Path("admin/outbox/cancel")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class OutboxCancelResource {

    /** The most rows one call cancels (one transaction, one audit entry); a caller goes on while {@code more}. */
    static final int MAX_BULK = 10_000;
    private static final Set<String> FIELDS = Set.of("appId", "triggerId", "sourceKind", "olderThan", "orderingKey",
            "all");

    @Inject
    Cancellations cancellations;

    @Inject
    AuditLog audit;

    @Context
    SecurityContext caller;

    /** An empty filter must say {@code "all": true}, so nobody cancels everything by accident. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public JsonObject cancel(JsonValue body) {
        JsonBody b = JsonBody.of(body, FIELDS);
        AppId app = b.parsed("appId", false, AppId::parse, "must be a UUID");
        TriggerId trigger = b.parsed("triggerId", false, TriggerId::parse, "must be a UUID");
        var kind = Payloads.sourceKind(b, "sourceKind", false);
        OffsetDateTime olderThan = b.time("olderThan", false);
        if (olderThan != null && (olderThan.getYear() < 1 || olderThan.getYear() > 9999)) {
            b.error("olderThan", "must be a time between the years 1 and 9999");
        }
        String orderingKey = b.string("orderingKey", false);
        if (orderingKey != null && OrderingKey.problem(orderingKey) != null) {
            b.error("orderingKey", OrderingKey.problem(orderingKey));
        }
        Boolean all = b.bool("all", false);
        b.validate();
        CancelFilter filter = new CancelFilter(app, trigger, kind, olderThan, orderingKey);
        if (filter.isEmpty() && !Boolean.TRUE.equals(all)) {
            throw OutboxRefusedException.invalid("all",
                    "must be true to cancel without a filter (appId, triggerId, sourceKind, orderingKey or olderThan)");
        }
        Cancellations.Bulk done = cancellations.cancelMatching(filter, MAX_BULK);
        audit.record(Callers.name(caller), AuditLog.BULK_CANCEL, done.ids(), filter.json(), done.ids().size());
        return Jsons.object().add("cancelled", done.cancelled()).add("cancelRequested", done.requested())
                .add("more", done.more()).build();
    }
}
