package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import java.util.List;
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

/** {@code /apps/{appId}/events}: publish an event; one row per matching enabled trigger, in one transaction. */
@Path("apps/{appId}/events")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class EventsResource {

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
        JsonBody b = JsonBody.of(body, Payloads.Event.FIELDS);
        Payloads.Event event = Payloads.Event.read(b);
        b.validate();
        String payloadText = event.payloadText(limits);

        try (CurrentTrace.Scope trace = Payloads.traced(traceparent, tracestate)) {
            return Payloads.once(idempotency, caller, uri, key, body,
                    () -> Payloads.published(outbox.publish(app, event.kind(), payloadText,
                            Callers.name(caller), event.root(), event.triggerDepth(), event.deliverAt(),
                            event.orderingKey())))
                    .toResponse();
        }
    }
}
