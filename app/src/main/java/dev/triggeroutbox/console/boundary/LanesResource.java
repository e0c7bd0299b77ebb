package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.console.control.Lanes;
import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OrderingKey;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Ordered lanes that do not flow: {@code GET /admin/lanes} (blocked behind a dead head, or behind a retrying one),
 * {@code POST /admin/lanes/skip} (a blocked lane moves on; its dead letter stays) and {@code POST /admin/lanes/retry}
 * (the head again, now). A lane is named by {@code triggerId} and {@code orderingKey} ({@code appId} instead of
 * {@code triggerId} for rows enqueued without a trigger). Each action is audited in its transaction.
 */
@Path("admin/lanes")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class LanesResource {

    private static final Set<String> FIELDS = Set.of("triggerId", "appId", "orderingKey");

    @Inject
    Lanes lanes;

    @Inject
    AuditLog audit;

    @Inject
    CommitWakeup wakeup;

    @Context
    SecurityContext caller;

    @GET
    public JsonObject list(@QueryParam("appId") String appId, @QueryParam("limit") String limit) {
        AppId app = AdminParams.app(appId);
        JsonArrayBuilder items = Jsons.array();
        for (Lanes.Stuck s : lanes.stuck(app == null ? null : app.value(), AdminParams.limit(limit))) {
            JsonObjectBuilder json = Jsons.object().add("state", s.state()).add("appId", s.appId().toString());
            ConsoleJson.add(json, "triggerId", s.triggerId());
            json.add("orderingKey", s.orderingKey()).add("headId", s.headId().toString())
                    .add("attempts", s.attempts()).add("waiting", s.waiting())
                    .add("since", ConsoleJson.utc(s.since()));
            items.add(ConsoleJson.add(json, "lastError", s.lastError()));
        }
        return Jsons.object().add("items", items).build();
    }

    /** 409 {@code lane-not-blocked} when no dead head blocks the lane. */
    @POST
    @Path("skip")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public JsonObject skip(JsonValue body) {
        Lane lane = lane(body);
        Lanes.Acted acted = lanes.skip(lane.id(), lane.orderingKey()).orElseThrow(() -> OutboxRefusedException.conflict(
                "lane-not-blocked", "Lane not blocked", "no dead letter blocks lane " + lane.orderingKey()
                        + " (a retrying head is skipped by cancelling it: POST /outbox/{id}/cancel)"));
        audit.record(Callers.name(caller), AuditLog.LANE_SKIP, List.of(acted.headId()), lane.json(), 1);
        wakeup.revived(1);
        return answer(lane, acted, "skipped");
    }

    /** 409 {@code lane-not-stuck} when the lane has neither a dead head nor a retrying one waiting. */
    @POST
    @Path("retry")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public JsonObject retry(JsonValue body) {
        Lane lane = lane(body);
        Lanes.Acted acted = lanes.retry(lane.id(), lane.orderingKey(), Callers.name(caller)).orElseThrow(
                () -> OutboxRefusedException.conflict("lane-not-stuck", "Lane not stuck", "lane " + lane.orderingKey()
                        + " has no dead head and no retrying head waiting (in flight, held, or flowing)"));
        audit.record(Callers.name(caller), AuditLog.LANE_RETRY, List.of(acted.headId()), lane.json(), 1);
        wakeup.revived(1);
        return answer(lane, acted, "retried");
    }

    /** A lane as a request names it. */
    private record Lane(UUID id, boolean byTrigger, String orderingKey) {
        JsonObject json() {
            return Jsons.object().add(byTrigger ? "triggerId" : "appId", id.toString()).add("orderingKey", orderingKey)
                    .build();
        }
    }

    private Lane lane(JsonValue body) {
        JsonBody b = JsonBody.of(body, FIELDS);
        TriggerId trigger = b.parsed("triggerId", false, TriggerId::parse, "must be a UUID");
        AppId app = b.parsed("appId", false, AppId::parse, "must be a UUID");
        String key = b.string("orderingKey", true);
        String problem = OrderingKey.problem(key);
        if (key != null && problem != null) {
            b.error("orderingKey", problem);
        }
        if (trigger == null && app == null && !b.present("triggerId") && !b.present("appId")) {
            b.error("triggerId", "is required (or appId, for rows enqueued without a trigger)");
        } else if (trigger != null && app != null) {
            b.error("appId", "must not be given with triggerId: a lane is a trigger's, or an app's rows without one");
        }
        b.validate();
        if (trigger != null && !lanes.triggerExists(trigger.value())) {
            throw OutboxRefusedException.notFound("trigger " + trigger);
        }
        return new Lane(trigger != null ? trigger.value() : app.value(), trigger != null, key);
    }

    private static JsonObject answer(Lane lane, Lanes.Acted acted, String done) {
        JsonObjectBuilder json = Jsons.object();
        lane.json().forEach(json::add);
        return json.add(done, true).add("state", acted.state()).add("headId", acted.headId().toString()).build();
    }
}
