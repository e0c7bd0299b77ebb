package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.control.Cancellations;
import dev.triggeroutbox.outbox.control.DeliveryAttempts;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.outbox.control.UnknownTriggerException;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.rest.control.Locations;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import java.util.List;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** {@code /outbox}: enqueue one row, ask where a row stands, cancel one. */
@Path("outbox")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class OutboxResource {

    @Inject
    DeliveryAttempts attempts;

    @Inject
    Outbox outbox;

    @Inject
    RowStatus status;

    @Inject
    Cancellations cancellations;

    @Inject
    OutboxLimits limits;

    @Inject
    IdempotencyKeys idempotency;

    @Context
    SecurityContext caller;

    @Context
    UriInfo uri;

    /** Not @Transactional: without a key the write is one statement, atomic by itself; with one, the key's transaction. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response enqueue(@HeaderParam("Idempotency-Key") String key,
            @HeaderParam("traceparent") List<String> traceparent,
            @HeaderParam("tracestate") List<String> tracestate, JsonValue body) {
        JsonBody b = JsonBody.of(body, Payloads.Row.FIELDS);
        Payloads.Row read = Payloads.Row.read(b);
        b.validate();
        AppAccess.requireApp(caller, read.app());
        String payloadText = read.event().payloadText(limits);

        try (CurrentTrace.Scope trace = Payloads.traced(traceparent, tracestate)) {
            return Payloads.once(idempotency, caller, uri, key, body, () -> {
                NewOutboxRow row = read.toNew(payloadText, Callers.name(caller));
                OutboxId id;
                try {
                    id = outbox.enqueue(row);
                } catch (UnknownTriggerException e) {
                    throw OutboxRefusedException.notFound("trigger " + read.trigger());
                }
                JsonObject json = Jsons.object().add("id", id.toString()).build();
                return new IdempotencyKeys.Answer(201, Locations.of(uri, "outbox", id.toString()),
                        json.toString());
            }).toResponse();
        }
    }

    @GET
    @Path("{id}")
    public JsonObject status(@PathParam("id") String id) {
        return RowStateJson.of(reachable(id), RowStateJson.View.PRODUCER).build();
    }

    /** The row, when it is of an app the caller may reach; 404 as for a row that does not exist otherwise. */
    private RowState reachable(String id) {
        OutboxId row = Callers.pathId(id, OutboxId::parse, "outbox row");
        RowState found = status.find(row).orElseThrow(() -> OutboxRefusedException.notFound("outbox row " + id));
        if (!AppAccess.mayReach(caller, found.appId())) {
            throw OutboxRefusedException.notFound("outbox row " + id);
        }
        return found;
    }

    /**
     * The delivery log of a row of the caller's app: every attempt that came to an end, first first, with its
     * outcome ({@code delivered}, {@code failed}, {@code dead}, {@code cancelled}), the HTTP status and the start of
     * the answer a webhook gave, and the error. {@code node} (host and process) only for admins, as in
     * {@code GET /admin/rows/{id}}; null for producers. Kept as long as the delivery history.
     */
    @GET
    @Path("{id}/attempts")
    public JsonObject attempts(@PathParam("id") String id) {
        OutboxId row = reachable(id).id();
        boolean operator = caller.isUserInRole(Callers.ADMIN);
        JsonArrayBuilder items = Jsons.array();
        for (DeliveryAttempts.Attempt a : attempts.of(row)) {
            JsonObjectBuilder item = Jsons.object()
                    .add("attempt", a.attempt())
                    .add("startedAt",
                            DateTimeFormatter.ISO_OFFSET_DATE_TIME
                                    .format(a.startedAt().withOffsetSameInstant(ZoneOffset.UTC)))
                    .add("durationMs", a.durationMillis())
                    .add("outcome", a.outcome());
            orNull(item, "node", operator ? a.node() : null);
            if (a.httpStatus() == null) {
                item.addNull("httpStatus");
            } else {
                item.add("httpStatus", a.httpStatus());
            }
            orNull(item, "error", a.error());
            orNull(item, "answer", a.answer());
            items.add(item);
        }
        return Jsons.object().add("items", items).build();
    }

    private static void orNull(JsonObjectBuilder json, String name, String value) {
        if (value == null) {
            json.addNull(name);
        } else {
            json.add(name, value);
        }
    }

    /**
     * Cancels a row of the caller's app: 200 with status {@code cancelled} when it was pending or scheduled (or
     * was cancelled before), 202 with where it stands when it was in flight (its attempt finishes first, then it
     * ends cancelled unless that attempt delivered), 409 when it was delivered or dead already.
     */
    @POST
    @Path("{id}/cancel")
    public Response cancel(@PathParam("id") String id) {
        OutboxId row = Callers.pathId(id, OutboxId::parse, "outbox row");
        Cancellations.Done done = cancellations.cancel(row, app -> AppAccess.mayReach(caller, app));
        RowState now = reachable(id);
        String stands = now.status();
        JsonObject json = RowStateJson.of(now, RowStateJson.View.PRODUCER).build();
        if (done == Cancellations.Done.REQUESTED) {
            return Response.accepted(json).build();
        }
        if (!stands.equals("cancelled")) {
            // delivered or dead; or still in the outbox when it was not (a replay since): nothing was cancelled
            throw OutboxRefusedException.conflict("not-cancellable", "Not cancellable",
                    "outbox row " + id + " is " + stands
                            + ": only pending, scheduled and in-flight rows can be cancelled");
        }
        return Response.ok(json).build();
    }

}
