package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.console.control.Activity;
import dev.triggeroutbox.console.control.AllTriggers;
import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.console.control.Counts;
import dev.triggeroutbox.console.control.DeadLetters;
import dev.triggeroutbox.console.control.Nodes;
import dev.triggeroutbox.console.control.RowBrowser;
import dev.triggeroutbox.console.control.Stats;
import dev.triggeroutbox.console.control.TriggerActivity;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.outbox.boundary.RowStateJson;
import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OrderingKey;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.targets.control.WebhookTarget;
import dev.triggeroutbox.triggers.boundary.TriggerJson;
import dev.triggeroutbox.triggers.entity.TargetType;
import dev.triggeroutbox.triggers.entity.Trigger;
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
import java.util.List;
import java.util.Map;
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
    RowBrowser rowBrowser;

    @Inject
    TriggerActivity triggerActivity;

    @Inject
    WebhookTarget webhooks;

    @Inject
    AuditLog audit;

    @Inject
    DispatcherSwitch dispatcherSwitch;

    @Context
    SecurityContext caller;

    @GET
    @Path("stats")
    public JsonObject stats() {
        return OverviewJson.totals(stats.totals(), dispatcherSwitch.paused());
    }

    @GET
    @Path("activity")
    public JsonObject activity(@QueryParam("minutes") String minutes) {
        return OverviewJson
                .activity(activity.perMinute(AdminParams.bounded("minutes", minutes, 60, 1, Counts.MINUTES) - 1));
    }

    @GET
    @Path("breakdown")
    public JsonObject breakdown(@QueryParam("by") String by, @QueryParam("limit") String limit) {
        Activity.By dimension = AdminParams.parse("by", by == null ? "sourceKind" : by, text -> switch (text) {
            case "sourceKind" -> Activity.By.SOURCE_KIND;
            case "appId" -> Activity.By.APP;
            default -> throw new IllegalArgumentException(text);
        }, "must be sourceKind or appId");
        return OverviewJson.breakdown(dimension, activity.breakdown(dimension, AdminParams.limit(limit)));
    }

    @GET
    @Path("nodes")
    public JsonObject nodes() {
        return OverviewJson.nodes(nodes.list());
    }

    @GET
    @Path("triggers")
    public JsonObject triggers(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        AllTriggers.Page page = allTriggers.page(AdminParams.app(appId), AdminParams.kind(sourceKind),
                AdminParams.limit(limit), AdminParams.cursor(cursor));
        Map<UUID, TriggerActivity.LastHour> lastHour = triggerActivity
                .lastHour(page.items().stream().map(t -> t.id().value()).toList());
        JsonArrayBuilder items = Jsons.array();
        for (Trigger t : page.items()) {
            JsonObjectBuilder item = TriggerJson.of(t, false);
            TriggerActivity.LastHour h = lastHour.get(t.id().value());
            JsonObjectBuilder hour = Jsons.object().add("delivered", h.delivered()).add("dead", h.dead());
            item.add("lastHour", h.p50Millis() == null
                    ? hour.addNull("p50Ms").addNull("p99Ms")
                    : hour.add("p50Ms", Math.round(h.p50Millis())).add("p99Ms", Math.round(h.p99Millis())));
            if (t.targetType() == TargetType.WEBHOOK) {
                item.add("circuit", webhooks.circuit(t.target())); // this node's: each node keeps its own
            }
            items.add(item);
        }
        return ConsoleJson.page(items, page.next() == null ? null : page.next().encode());
    }

    /**
     * Every row, by status (none: every row still in the outbox), newest first, filtered; see {@link RowBrowser}.
     * {@code from} and {@code to} bound the time the list is ordered by.
     */
    @GET
    @Path("rows")
    public JsonObject rows(@QueryParam("status") String status, @QueryParam("appId") String appId,
            @QueryParam("triggerId") String triggerId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("orderingKey") String orderingKey, @QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        String s = AdminParams.parse("status", status, text -> {
            if (!RowBrowser.LIVE.contains(text) && !RowBrowser.FINISHED.contains(text) && !text.equals("dead")) {
                throw new IllegalArgumentException(text);
            }
            return text;
        }, "must be one of pending, scheduled, in_flight, held, delivered, dead, cancelled");
        if (orderingKey != null && OrderingKey.problem(orderingKey) != null) {
            throw OutboxRefusedException.invalid("orderingKey", OrderingKey.problem(orderingKey));
        }
        if (orderingKey != null && s != null && RowBrowser.FINISHED.contains(s)) {
            throw OutboxRefusedException.invalid("orderingKey",
                    "applies to rows in the outbox and dead letters only: the history keeps no ordering key");
        }
        TriggerId trigger = AdminParams.parse("triggerId", triggerId, TriggerId::parse, "must be a UUID");
        AppId app = AdminParams.app(appId);
        SourceKind kind = AdminParams.kind(sourceKind);
        RowBrowser.Page page = rowBrowser.page(new RowBrowser.Filter(s, app == null ? null : app.value(),
                trigger == null ? null : trigger.value(), kind == null ? null : kind.wire(), orderingKey,
                AdminParams.time("from", from), AdminParams.time("to", to)), AdminParams.limit(limit),
                AdminParams.cursor(cursor));
        JsonArrayBuilder items = Jsons.array();
        for (RowBrowser.Listed r : page.items()) {
            JsonObjectBuilder json = Jsons.object().add("id", r.id().toString()).add("appId", r.appId().toString());
            ConsoleJson.add(json, "triggerId", r.triggerId());
            json.add("sourceKind", r.sourceKind()).add("status", r.status()).add("attemptCount", r.attempts());
            ConsoleJson.add(json, "lastError", r.lastError());
            ConsoleJson.add(json, "orderingKey", r.orderingKey());
            items.add(json.add("createdAt", ConsoleJson.utc(r.createdAt())).add("at", ConsoleJson.utc(r.at())));
        }
        return ConsoleJson.page(items, page.next() == null ? null : page.next().encode());
    }

    /** Where a row stands, the dead letter in full when it is dead, and every admin action on it. */
    @GET
    @Path("rows/{id}")
    public JsonObject row(@PathParam("id") String id) {
        OutboxId row = Callers.pathId(id, OutboxId::parse, "outbox row");
        RowState status = rowStatus.find(row).orElseThrow(() -> OutboxRefusedException.notFound("outbox row " + id));
        JsonValue dead = "dead".equals(status.status())
                ? deadLetters.find(row).<JsonValue>map(DeadLetterJson::kept).orElse(JsonValue.NULL)
                : JsonValue.NULL;
        return Jsons.object().add("row", RowStateJson.of(status, RowStateJson.View.OPERATOR)).add("deadLetter", dead)
                .add("audit", auditItems(audit.page(null, row.value(), AdminParams.MAX_PAGE, null).items())).build();
    }

    @GET
    @Path("audit")
    public JsonObject audit(@QueryParam("action") String action, @QueryParam("targetId") String targetId,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        if (action != null && action.length() > 100) {
            throw OutboxRefusedException.invalid("action", "must be at most 100 characters");
        }
        UUID target = AdminParams.parse("targetId", targetId, UUID::fromString, "must be a UUID");
        Long before = AdminParams.parse("cursor", cursor, Long::parseLong, "is not a cursor from a previous page");
        AuditLog.Page page = audit.page(action, target, AdminParams.limit(limit), before);
        return ConsoleJson.page(auditItems(page.items()), page.next());
    }

    private static JsonArrayBuilder auditItems(List<AuditLog.Entry> entries) {
        JsonArrayBuilder items = Jsons.array();
        for (AuditLog.Entry e : entries) {
            JsonArrayBuilder ids = Jsons.array();
            e.targetIds().forEach(id -> ids.add(id.toString()));
            items.add(Jsons.object()
                    .add("id", e.id())
                    .add("at", ConsoleJson.utc(e.at()))
                    .add("principal", e.principal())
                    .add("action", e.action())
                    .add("targetIds", ids)
                    .add("affected", e.affected())
                    .add("filter", e.filter() == null ? JsonValue.NULL : Jsons.reader(e.filter()).readObject()));
        }
        return items;
    }

    @POST
    @Path("dispatcher/pause")
    @Transactional(rollbackOn = Exception.class)
    public Response pause() {
        return dispatcher(true, AuditLog.PAUSE);
    }

    @POST
    @Path("dispatcher/resume")
    @Transactional(rollbackOn = Exception.class)
    public Response resume() {
        return dispatcher(false, AuditLog.RESUME);
    }

    private Response dispatcher(boolean paused, String action) {
        dispatcherSwitch.set(paused, Callers.name(caller));
        audit.record(Callers.name(caller), action, List.of(), null, 0);
        return Response.noContent().build();
    }
}
