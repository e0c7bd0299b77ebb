package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.rest.control.Locations;
import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.console.control.DeadLetterFilter;
import dev.triggeroutbox.console.control.DeadLetters;
import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Set;

/**
 * {@code /admin/dead-letters}: browse (filter by app, source kind, error text; cursor pages), read
 * one, replay one or every one that matches a filter, discard. Each change is audited in its own
 * transaction.
 */
@Path("admin/dead-letters")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class DeadLettersResource {

    /** The most rows one bulk replay moves; a caller replays more by calling again while {@code more}. */
    static final int MAX_BULK = 1_000;
    private static final Set<String> BULK_FIELDS = Set.of("appId", "sourceKind", "error", "triggerId", "errorGroup",
            "orderingKey", "all",
            "limit");

    @Inject
    DeadLetters deadLetters;

    @Inject
    AuditLog audit;

    @Inject
    IdempotencyKeys idempotency;

    @Inject
    CommitWakeup wakeup;

    @Context
    SecurityContext caller;

    @Context
    UriInfo uri;

    @GET
    public JsonObject list(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("error") String error, @QueryParam("triggerId") String triggerId,
            @QueryParam("orderingKey") String orderingKey, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        DeadLetterFilter filter = AdminParams.deadLetterFilter(appId, sourceKind, error, triggerId, null, orderingKey);
        return DeadLetterJson.page(deadLetters.page(filter, AdminParams.limit(limit), AdminParams.cursor(cursor)));
    }

    /**
     * The dead letters that match, grouped by app, trigger, source kind and failure (the last error with its ids,
     * times and numbers taken out), largest first; {@code errorGroup} and {@code triggerId} of a group replay or
     * discard it through the bulk calls.
     */
    @GET
    @Path("groups")
    public JsonObject groups(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("error") String error, @QueryParam("triggerId") String triggerId,
            @QueryParam("orderingKey") String orderingKey, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        DeadLetterFilter filter = AdminParams.deadLetterFilter(appId, sourceKind, error, triggerId, null, orderingKey);
        return DeadLetterJson
                .groups(deadLetters.groups(filter, AdminParams.limit(limit), AdminParams.groupOffset(cursor)));
    }

    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String id) {
        onlyPostOnReplay(id);
        return deadLetters.find(Callers.pathId(id, OutboxId::parse, "dead letter")).map(DeadLetterJson::kept)
                .orElseThrow(() -> OutboxRefusedException.notFound("dead letter " + id));
    }

    @POST
    @Path("{id}/replay")
    @Transactional(rollbackOn = Exception.class)
    public Response replay(@PathParam("id") String id, @HeaderParam("Idempotency-Key") String key) {
        OutboxId row = Callers.pathId(id, OutboxId::parse, "dead letter");
        String by = Callers.name(caller);
        // a retry with the same key answers 201 again, although the dead letter is gone by then
        return idempotency.once(by, key, "POST", uri.getPath(), "", () -> {
            if (!deadLetters.replay(row, by)) {
                throw OutboxRefusedException.notFound("dead letter " + id);
            }
            audit.record(by, AuditLog.REPLAY, List.of(row.value()), null, 1);
            wakeup.revived(1);
            return new IdempotencyKeys.Answer(201, Locations.of(uri, "outbox", row.toString()),
                    Jsons.object().add("id", row.toString()).build().toString());
        }).toResponse();
    }

    /**
     * Replays up to {@code limit} (at most {@link #MAX_BULK}) dead letters matching the filter, oldest
     * first. An empty filter must say {@code "all": true}, so nobody replays everything by accident.
     */
    @POST
    @Path("replay")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public Response replayMatching(@HeaderParam("Idempotency-Key") String key, JsonValue body) {
        Bulk bulk = bulk(body, "replay");
        DeadLetterFilter filter = bulk.filter();
        Integer limit = bulk.limit();
        String by = Callers.name(caller);
        return idempotency.once(by, key, "POST", uri.getPath(), String.valueOf(body), () -> {
            DeadLetters.Replayed done = deadLetters.replayMatching(filter, limit == null ? MAX_BULK : limit, by);
            audit.record(by, AuditLog.BULK_REPLAY, done.ids(), DeadLetterJson.filter(filter), done.ids().size());
            wakeup.revived(done.ids().size());
            JsonArrayBuilder ids = Jsons.array();
            done.ids().forEach(id -> ids.add(id.toString()));
            return new IdempotencyKeys.Answer(200, null, Jsons.object().add("replayed", done.ids().size())
                    .add("more", done.more()).add("ids", ids).build().toString());
        }).toResponse();
    }

    /**
     * Discards up to {@code limit} (at most {@link #MAX_BULK}) dead letters matching the filter, oldest first, in one
     * transaction with its audit record. An empty filter must say {@code "all": true}.
     */
    @POST
    @Path("discard")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public JsonObject discardMatching(JsonValue body) {
        Bulk bulk = bulk(body, "discard");
        DeadLetters.Replayed done = deadLetters.discardMatching(bulk.filter(),
                bulk.limit() == null ? MAX_BULK : bulk.limit());
        audit.record(Callers.name(caller), AuditLog.BULK_DISCARD, done.ids(), DeadLetterJson.filter(bulk.filter()),
                done.ids().size());
        JsonArrayBuilder ids = Jsons.array();
        done.ids().forEach(id -> ids.add(id.toString()));
        return Jsons.object().add("discarded", done.ids().size()).add("more", done.more()).add("ids", ids).build();
    }

    /** The body of a bulk replay or discard, checked. */
    private record Bulk(DeadLetterFilter filter, Integer limit) {
    }

    private static Bulk bulk(JsonValue body, String action) {
        JsonBody b = JsonBody.of(body, BULK_FIELDS);
        String appId = b.string("appId", false);
        String sourceKind = b.string("sourceKind", false);
        String error = b.string("error", false);
        String triggerId = b.string("triggerId", false);
        String errorGroup = b.string("errorGroup", false);
        String orderingKey = b.string("orderingKey", false);
        Boolean all = b.bool("all", false);
        Integer limit = b.integer("limit", false, 1, MAX_BULK);
        b.validate();
        DeadLetterFilter filter = AdminParams.deadLetterFilter(appId, sourceKind, error, triggerId, errorGroup,
                orderingKey);
        if (filter.isEmpty() && !Boolean.TRUE.equals(all)) {
            throw OutboxRefusedException.invalid("all", "must be true to " + action
                    + " without a filter (appId, sourceKind, error, triggerId, errorGroup or orderingKey)");
        }
        return new Bulk(filter, limit);
    }

    @DELETE
    @Path("{id}")
    @Transactional(rollbackOn = Exception.class)
    public Response discard(@PathParam("id") String id) {
        onlyPostOnReplay(id);
        OutboxId row = Callers.pathId(id, OutboxId::parse, "dead letter");
        if (!deadLetters.discard(row)) {
            throw OutboxRefusedException.notFound("dead letter " + id);
        }
        audit.record(Callers.name(caller), AuditLog.DISCARD, List.of(row.value()), null, 1);
        return Response.noContent().build();
    }

    /**
     * {@code /admin/dead-letters/replay} and {@code …/discard} are the bulk calls and {@code …/groups} the group list,
     * not a dead letter's id: other methods there are 405.
     */
    private static void onlyPostOnReplay(String id) {
        switch (id) {
            case "replay", "discard" -> throw new NotAllowedException("POST");
            case "groups" -> throw new NotAllowedException("GET");
            default -> {
            }
        }
    }
}
