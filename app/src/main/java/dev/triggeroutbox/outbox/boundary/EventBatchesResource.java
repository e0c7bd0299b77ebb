package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import jakarta.ws.rs.Consumes;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code /apps/{appId}/events:batch}: publish many events at once, each fanned out as by
 * {@code /events}, all in one transaction and one statement. Every event is checked before anything is
 * written; one refused event refuses the batch.
 */
@Path("apps/{appId}/events:batch")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class EventBatchesResource {

    @Inject
    Outbox outbox;

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
    public Response publish(@PathParam("appId") String appId, @HeaderParam("Idempotency-Key") String key,
            @HeaderParam("traceparent") List<String> traceparent,
            @HeaderParam("tracestate") List<String> tracestate, JsonValue body) {
        AppId app = Callers.pathId(appId, AppId::parse, "app");
        AppAccess.requireApp(caller, app);
        JsonBody b = JsonBody.of(body, Set.of(Payloads.BATCH_FIELD));
        List<Payloads.Event> read = Payloads.batch(b, body, Payloads.Event.FIELDS, limits).stream()
                .map(Payloads.Event::read).toList();
        b.validate();
        List<NewEvent> events = new ArrayList<>(read.size());
        for (int i = 0; i < read.size(); i++) {
            events.add(read.get(i).toNew(limits, i));
        }

        try (CurrentTrace.Scope trace = Payloads.traced(traceparent, tracestate)) {
            return Payloads
                    .once(idempotency, caller, uri, key, body,
                            () -> Payloads.batchWritten(outbox.publishAll(app, events, Callers.name(caller))))
                    .toResponse();
        }
    }
}
