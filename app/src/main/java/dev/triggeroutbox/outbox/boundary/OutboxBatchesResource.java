package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.api.OutboxRefusedException.FieldError;
import dev.triggeroutbox.api.OutboxRefusedException.Reason;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.control.UnknownTriggersException;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
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
 * {@code /outbox:batch}: enqueue many rows at once, each as by {@code POST /outbox}, in one transaction
 * and one statement. A row of an app the caller cannot reach, or naming a trigger that is not its app's,
 * refuses the batch, with every such row named.
 */
@Path("outbox:batch")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class OutboxBatchesResource {

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

    /** Not @Transactional: without a key the write is a transaction of its own in Outbox.enqueueAll; with one, the key's transaction. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response enqueue(@HeaderParam("Idempotency-Key") String key,
            @HeaderParam("traceparent") List<String> traceparent,
            @HeaderParam("tracestate") List<String> tracestate, JsonValue body) {
        JsonBody b = JsonBody.of(body, Set.of(Payloads.BATCH_FIELD));
        List<Payloads.Row> read = Payloads.batch(b, body, Payloads.Row.FIELDS, limits).stream()
                .map(Payloads.Row::read).toList();
        b.validate();
        List<FieldError> unreachable = new ArrayList<>();
        for (int i = 0; i < read.size(); i++) {
            if (!AppAccess.mayReach(caller, read.get(i).app())) {
                unreachable.add(new OutboxRefusedException.FieldError(field(i, "appId"),
                        "app " + read.get(i).app() + " not found"));
            }
        }
        if (!unreachable.isEmpty()) {
            throw refused(Reason.NOT_FOUND, "not-found", "Not found", unreachable);
        }
        List<NewOutboxRow> rows = new ArrayList<>(read.size());
        for (int i = 0; i < read.size(); i++) {
            rows.add(read.get(i).toNew(read.get(i).event().payloadText(limits, i), Callers.name(caller)));
        }

        try (CurrentTrace.Scope trace = Payloads.traced(traceparent, tracestate)) {
            return Payloads.once(idempotency, caller, uri, key, body, () -> {
                List<OutboxId> ids;
                try {
                    ids = outbox.enqueueAll(rows);
                } catch (UnknownTriggersException e) {
                    throw refused(Reason.UNPROCESSABLE, "unknown-trigger", "Request cannot be processed",
                            e.rows().stream()
                                    .map(i -> new OutboxRefusedException.FieldError(field(i, "triggerId"),
                                            "is not a trigger of app " + rows.get(i).appId()))
                                    .toList());
                }
                List<OutboxWriter.Written> written = new ArrayList<>(ids.size());
                for (int i = 0; i < ids.size(); i++) {
                    written.add(new OutboxWriter.Written(i, ids.get(i), rows.get(i).triggerId()));
                }
                return Payloads.batchWritten(written);
            }).toResponse();
        }
    }

    private static String field(int row, String name) {
        return Payloads.BATCH_FIELD + "[" + row + "]." + name;
    }

    private static OutboxRefusedException refused(Reason reason, String type, String title, List<FieldError> errors) {
        String detail = errors.size() == 1
                ? errors.get(0).field() + ": " + errors.get(0).message()
                : errors.size() + " events are refused";
        return new OutboxRefusedException(reason, type, title, detail, errors, null);
    }
}
