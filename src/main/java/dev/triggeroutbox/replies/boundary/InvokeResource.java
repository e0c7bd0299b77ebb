package dev.triggeroutbox.replies.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.replies.control.InvokeRequests;
import dev.triggeroutbox.replies.control.Replies;
import dev.triggeroutbox.replies.control.ReplyAnswers;
import dev.triggeroutbox.rest.control.ApiException;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.triggers.control.Triggers;
import dev.triggeroutbox.triggers.entity.Trigger;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
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
import java.sql.SQLException;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code POST /apps/{appId}/triggers/{id}/invoke}: request/reply through the outbox. The row is
 * committed first (so it is delivered even if this caller goes away), then the caller waits,
 * holding no transaction, for the target's answer: 200 with it, or 202 with where to fetch it.
 */
@Path("apps/{appId}/triggers/{triggerId}/invoke")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class InvokeResource {

    @Inject
    InvokeRequests requests;

    @Inject
    Triggers triggers;

    @Inject
    Replies replies;

    @Inject
    OutboxLimits limits;

    @Inject
    @ConfigProperty(name = "outbox.invoke.default-timeout-ms", defaultValue = "10000")
    long defaultTimeoutMillis;

    @Inject
    @ConfigProperty(name = "outbox.invoke.max-timeout-ms", defaultValue = "60000")
    long maxTimeoutMillis;

    @Context
    SecurityContext caller;

    @Context
    UriInfo uri;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response invoke(@PathParam("appId") String appId, @PathParam("triggerId") String triggerId,
            @QueryParam("timeoutMs") String timeoutMs, @HeaderParam("Idempotency-Key") String key, JsonValue body)
            throws SQLException, InterruptedException {
        AppId app = Callers.pathId(appId, AppId::parse, "app");
        Callers.requireApp(caller, app);
        Trigger trigger = triggers.find(app, Callers.pathId(triggerId, TriggerId::parse, "trigger"))
                .orElseThrow(() -> ApiException.notFound("trigger " + triggerId));
        long timeout = timeout(timeoutMs);
        JsonBody b = JsonBody.of(body, Set.of("payload"));
        JsonValue payload = b.any("payload", true);
        b.validate();
        String text = limits.payloadText(payload, null);
        if (!trigger.enabled()) {
            throw ApiException.unprocessable("trigger-disabled", "trigger " + triggerId + " is disabled");
        }

        // committed before the wait; a repeated Idempotency-Key waits for the first request's answer
        InvokeRequests.Started started = requests.start(Callers.name(caller), key, uri.getPath(), String.valueOf(body),
                NewOutboxRow.to(app, trigger.sourceKind(), trigger.id(), text)
                        .withScript(trigger.scriptId().orElse(null))
                        .withOrigin(Callers.name(caller)),
                uri.getBaseUri());
        return replies.await(started.replyId(), timeout)
                .map(reply -> ReplyAnswers.of(reply, uri.getRequestUri().getRawPath()))
                .orElseGet(() -> Response.fromResponse(started.pending().toResponse())
                        .header("Outbox-Row-Id", started.row().toString())
                        .header("Retry-After", "1")
                        .build());
    }

    private long timeout(String text) {
        if (text == null) {
            return Math.min(defaultTimeoutMillis, maxTimeoutMillis);
        }
        try {
            long t = Long.parseLong(text);
            if (t >= 0 && t <= maxTimeoutMillis) {
                return t;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.invalid("timeoutMs", "must be a whole number of milliseconds from 0 to " + maxTimeoutMillis);
    }
}
