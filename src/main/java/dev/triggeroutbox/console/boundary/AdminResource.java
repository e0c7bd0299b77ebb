package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.console.control.DeadLetters;
import dev.triggeroutbox.console.control.Stats;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.ApiException;
import dev.triggeroutbox.rest.control.Callers;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.DELETE;
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
import jakarta.ws.rs.core.UriInfo;
import java.sql.SQLException;

/** {@code /admin}: totals, dead letters (inspect, replay, discard) and the cluster-wide dispatcher switch. */
@Path("admin")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {

    private static final int MAX_PAGE = 500;

    @Inject
    Stats stats;

    @Inject
    DeadLetters deadLetters;

    @Inject
    DispatcherSwitch dispatcherSwitch;

    @Context
    SecurityContext caller;

    @Context
    UriInfo uri;

    @GET
    @Path("stats")
    public JsonObject stats() throws SQLException {
        return stats.totals();
    }

    @GET
    @Path("dead-letters")
    public JsonObject deadLetters(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) throws SQLException {
        AppId app = appId == null ? null : query("appId", appId, AppId::parse, "must be a UUID");
        SourceKind kind = sourceKind == null ? null : query("sourceKind", sourceKind,
                w -> SourceKind.fromWire(w).orElseThrow(IllegalArgumentException::new), "must be one of " + SourceKind.wireNames());
        int size = limit == null ? 50 : query("limit", limit, Integer::parseInt, "must be a whole number");
        if (size < 1 || size > MAX_PAGE) {
            throw ApiException.invalid("limit", "must be between 1 and " + MAX_PAGE);
        }
        DeadLetters.Cursor after = cursor == null ? null
                : query("cursor", cursor, DeadLetters.Cursor::decode, "is not a cursor from a previous page");
        return deadLetters.page(app, kind, size, after);
    }

    @POST
    @Path("dead-letters/{id}/replay")
    @Transactional(rollbackOn = Exception.class)
    public Response replay(@PathParam("id") String id) throws SQLException {
        OutboxId row = Callers.pathId(id, OutboxId::parse, "dead letter");
        if (!deadLetters.replay(row, Callers.name(caller))) {
            throw ApiException.notFound("dead letter " + id);
        }
        return Response.created(uri.getBaseUriBuilder().path("outbox").path(row.toString()).build())
                .entity(Jsons.object().add("id", row.toString()).build()).build();
    }

    @DELETE
    @Path("dead-letters/{id}")
    @Transactional(rollbackOn = Exception.class)
    public Response discard(@PathParam("id") String id) throws SQLException {
        if (!deadLetters.discard(Callers.pathId(id, OutboxId::parse, "dead letter"))) {
            throw ApiException.notFound("dead letter " + id);
        }
        return Response.noContent().build();
    }

    @POST
    @Path("dispatcher/pause")
    public Response pause() throws SQLException {
        dispatcherSwitch.set(true, Callers.name(caller));
        return Response.noContent().build();
    }

    @POST
    @Path("dispatcher/resume")
    public Response resume() throws SQLException {
        dispatcherSwitch.set(false, Callers.name(caller));
        return Response.noContent().build();
    }

    private static <T> T query(String name, String value, java.util.function.Function<String, T> parse, String expected) {
        try {
            return parse.apply(value);
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw ApiException.invalid(name, expected);
        }
    }
}
