package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.console.control.Activity;
import dev.triggeroutbox.console.control.AllTriggers;
import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.console.control.Counts;
import dev.triggeroutbox.console.control.DeadLetters;
import dev.triggeroutbox.console.control.Nodes;
import dev.triggeroutbox.console.control.Stats;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.rest.control.ApiException;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.triggers.boundary.TriggersResource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * {@code /admin}: what the ops console shows (totals, activity per minute, breakdowns, nodes,
 * triggers of every app, a row's trail, the audit record) and the cluster-wide dispatcher switch.
 * Dead letters have their own resource.
 */
@Path("admin")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {

    @Inject
    Stats stats;

    @Inject
    Activity activity;

    @Inject
    Nodes nodes;

    @Inject
    AllTriggers allTriggers;

    @Inject
    RowStatus rowStatus;

    @Inject
    DeadLetters deadLetters;

    @Inject
    AuditLog audit;

    @Inject
    DispatcherSwitch dispatcherSwitch;

    @Context
    SecurityContext caller;

    @GET
    @Path("stats")
    public JsonObject stats() throws SQLException {
        // the switch's state beside the totals, so the console shows pause or resume
        return jakarta.json.Json.createObjectBuilder(stats.totals()).add("paused", dispatcherSwitch.paused()).build();
    }

    @GET
    @Path("activity")
    public JsonObject activity(@QueryParam("minutes") String minutes) throws SQLException {
        return activity.perMinute(AdminParams.bounded("minutes", minutes, 60, 1, Counts.MINUTES) - 1);
    }

    @GET
    @Path("breakdown")
    public JsonObject breakdown(@QueryParam("by") String by, @QueryParam("limit") String limit) throws SQLException {
        Activity.By dimension = AdminParams.parse("by", by == null ? "sourceKind" : by, text -> switch (text) {
            case "sourceKind" -> Activity.By.SOURCE_KIND;
            case "appId" -> Activity.By.APP;
            default -> throw new IllegalArgumentException(text);
        }, "must be sourceKind or appId");
        return activity.breakdown(dimension, AdminParams.limit(limit));
    }

    @GET
    @Path("nodes")
    public JsonObject nodes() throws SQLException {
        return nodes.list();
    }

    @GET
    @Path("triggers")
    public JsonObject triggers(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        AllTriggers.Page page = allTriggers.page(AdminParams.app(appId), AdminParams.kind(sourceKind),
                AdminParams.limit(limit), AdminParams.cursor(cursor));
        JsonArrayBuilder items = Jsons.array();
        page.items().forEach(t -> items.add(TriggersResource.json(t, false)));
        JsonObjectBuilder json = Jsons.object().add("items", items);
        return (page.next() == null ? json.addNull("nextCursor") : json.add("nextCursor", page.next().encode())).build();
    }

    /** Where a row stands, the dead letter in full when it is dead, and every admin action on it. */
    @GET
    @Path("rows/{id}")
    public JsonObject row(@PathParam("id") String id) throws SQLException {
        OutboxId row = Callers.pathId(id, OutboxId::parse, "outbox row");
        JsonObject status = rowStatus.find(row).orElseThrow(() -> ApiException.notFound("outbox row " + id)).json();
        JsonValue dead = "dead".equals(status.getString("status", ""))
                ? deadLetters.find(row).map(JsonValue.class::cast).orElse(JsonValue.NULL) : JsonValue.NULL;
        return Jsons.object().add("row", status).add("deadLetter", dead)
                .add("audit", audit.page(null, row.value(), AdminParams.MAX_PAGE, null).getJsonArray("items")).build();
    }

    @GET
    @Path("audit")
    public JsonObject audit(@QueryParam("action") String action, @QueryParam("targetId") String targetId,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) throws SQLException {
        if (action != null && action.length() > 100) {
            throw ApiException.invalid("action", "must be at most 100 characters");
        }
        UUID target = AdminParams.parse("targetId", targetId, UUID::fromString, "must be a UUID");
        Long before = AdminParams.parse("cursor", cursor, Long::parseLong, "is not a cursor from a previous page");
        return audit.page(action, target, AdminParams.limit(limit), before);
    }

    @POST
    @Path("dispatcher/pause")
    @Transactional(rollbackOn = Exception.class)
    public Response pause() throws SQLException {
        return dispatcher(true, AuditLog.PAUSE);
    }

    @POST
    @Path("dispatcher/resume")
    @Transactional(rollbackOn = Exception.class)
    public Response resume() throws SQLException {
        return dispatcher(false, AuditLog.RESUME);
    }

    private Response dispatcher(boolean paused, String action) throws SQLException {
        dispatcherSwitch.set(paused, Callers.name(caller));
        audit.record(Callers.name(caller), action, List.of(), null, 0);
        return Response.noContent().build();
    }
}
