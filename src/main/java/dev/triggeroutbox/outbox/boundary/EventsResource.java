package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
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
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;

/** {@code /apps/{appId}/events}: publish an event; one row per matching enabled trigger, in one transaction. */
@Path("apps/{appId}/events")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class EventsResource {

    private static final Set<String> FIELDS = Set.of("sourceKind", "payload", "rootExecutionId", "triggerDepth", "deliverAt");

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

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public Response publish(@PathParam("appId") String appId, @HeaderParam("Idempotency-Key") String key, JsonValue body) {
        AppId app = Callers.pathId(appId, AppId::parse, "app");
        Callers.requireApp(caller, app);
        JsonBody b = JsonBody.of(body, FIELDS);
        SourceKind kind = b.parsed("sourceKind", true, w -> SourceKind.fromWire(w).orElseThrow(IllegalArgumentException::new),
                "must be one of " + SourceKind.wireNames());
        JsonValue payload = b.any("payload", true);
        ExecutionId root = b.parsed("rootExecutionId", false, ExecutionId::parse, "must be a UUID");
        Integer depth = b.integer("triggerDepth", false, 0, Integer.MAX_VALUE);
        OffsetDateTime deliverAt = b.time("deliverAt", false);
        b.validate();
        String payloadText = Payloads.check(payload, depth, limits);

        return idempotency.once(Callers.name(caller), key, "POST", uri.getPath(), body.toString(), () -> {
            List<OutboxWriter.FannedOut> rows = Payloads.write(() -> outbox.publish(app, kind, payloadText,
                    Callers.name(caller), root, depth == null ? 0 : depth, deliverAt));
            JsonArrayBuilder list = Json.createArrayBuilder();
            rows.forEach(r -> list.add(Json.createObjectBuilder().add("id", r.id().toString())
                    .add("triggerId", r.triggerId().toString())));
            return new IdempotencyKeys.Answer(202, null, Json.createObjectBuilder().add("rows", list).build().toString());
        }).toResponse();
    }
}
