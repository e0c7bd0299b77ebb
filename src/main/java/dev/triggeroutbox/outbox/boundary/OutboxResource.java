package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.rest.control.Locations;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.control.ReplySlots;
import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.outbox.control.UnknownTriggerException;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.ApiException;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
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
import java.sql.SQLException;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** {@code /outbox}: enqueue one row, and ask where a row stands. */
@Path("outbox")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class OutboxResource {

    private static final Set<String> FIELDS = Stream.concat(Stream.of("appId", "triggerId", "scriptId", "replyTo"),
            Payloads.Event.FIELDS.stream()).collect(Collectors.toUnmodifiableSet());

    @Inject
    Outbox outbox;

    @Inject
    RowStatus status;

    @Inject
    ReplySlots replySlots;

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
    public Response enqueue(@HeaderParam("Idempotency-Key") String key, JsonValue body) {
        JsonBody b = JsonBody.of(body, FIELDS);
        AppId app = b.parsed("appId", true, AppId::parse, "must be a UUID");
        TriggerId trigger = b.parsed("triggerId", false, TriggerId::parse, "must be a UUID");
        ScriptId script = b.parsed("scriptId", false, ScriptId::parse, "must be a UUID");
        OutboxId replyTo = b.parsed("replyTo", false, OutboxId::parse, "must be a UUID");
        Payloads.Event event = Payloads.Event.read(b);
        b.validate();
        Callers.requireApp(caller, app);
        String payloadText = event.payloadText(limits);

        return idempotency.once(Callers.name(caller), key, "POST", uri.getPath(), body.toString(), () -> {
            NewOutboxRow row = new NewOutboxRow(app, event.kind(), trigger, script, replyTo, payloadText,
                    Callers.name(caller), event.triggerDepth(), event.root(), null, event.deliverAt(), null);
            OutboxId id;
            try {
                if (replyTo != null) {
                    Payloads.write(() -> {
                        replySlots.take(replyTo);
                        return replyTo;
                    });
                }
                id = Payloads.write(() -> outbox.enqueue(row));
            } catch (UnknownTriggerException e) {
                throw ApiException.notFound("trigger " + trigger);
            }
            JsonObject json = Jsons.object().add("id", id.toString()).build();
            return new IdempotencyKeys.Answer(201, Locations.of(uri, "outbox", id.toString()),
                    json.toString());
        }).toResponse();
    }

    @GET
    @Path("{id}")
    public JsonObject status(@PathParam("id") String id) throws SQLException {
        OutboxId row = Callers.pathId(id, OutboxId::parse, "outbox row");
        RowStatus.Found found = status.find(row).orElseThrow(() -> ApiException.notFound("outbox row " + id));
        if (!Callers.mayReach(caller, new AppId(found.appId()))) {
            throw ApiException.notFound("outbox row " + id);
        }
        return found.forProducer();
    }

}
