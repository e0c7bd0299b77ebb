package dev.triggeroutbox.replies.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.holds.control.Holds;
import dev.triggeroutbox.outbox.boundary.AppAccess;
import dev.triggeroutbox.outbox.boundary.Payloads;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.replies.control.InvokeRequests;
import dev.triggeroutbox.replies.control.Replies;
import dev.triggeroutbox.replies.control.ReplyAnswers;
import dev.triggeroutbox.replies.control.StoredReplies;
import dev.triggeroutbox.replies.control.WaitingInvokes;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Locations;
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
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.CompletionCallback;
import jakarta.ws.rs.container.ConnectionCallback;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code POST /apps/{appId}/triggers/{id}/invoke}: request/reply through the outbox. The row is
 * committed first (so it is delivered even if this caller goes away), then the request is suspended
 * until the target's answer (200 with it) or the timeout (202 with where to fetch it): a waiting
 * invoke holds neither a transaction nor a request thread. Waiting invokes are capped per caller and
 * per node ({@link WaitingInvokes}); past a cap the invoke is refused (429) before it writes anything.
 */
@Path("apps/{appId}/triggers/{triggerId}/invoke")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class InvokeResource {

    /** How long past its own deadline the container's timeout of a suspended invoke comes: only a backstop. */
    private static final long BACKSTOP_MILLIS = 5_000;

    @Inject
    Holds holds;

    @Inject
    InvokeRequests requests;

    @Inject
    Triggers triggers;

    @Inject
    Replies replies;

    @Inject
    StoredReplies stored;

    @Inject
    WaitingInvokes waiting;

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
    public void invoke(@PathParam("appId") String appId, @PathParam("triggerId") String triggerId,
            @QueryParam("timeoutMs") String timeoutMs, @HeaderParam("Idempotency-Key") String key,
            @HeaderParam("traceparent") List<String> traceparent, @HeaderParam("tracestate") List<String> tracestate,
            JsonValue body, @Suspended AsyncResponse async) {
        AppId app = Callers.pathId(appId, AppId::parse, "app");
        AppAccess.requireApp(caller, app);
        Trigger trigger = triggers.find(app, Callers.pathId(triggerId, TriggerId::parse, "trigger"))
                .orElseThrow(() -> OutboxRefusedException.notFound("trigger " + triggerId));
        long timeout = timeout(timeoutMs);
        JsonBody b = JsonBody.of(body, Set.of("payload"));
        JsonValue payload = b.any("payload", true);
        b.validate();
        String text = limits.payloadText(payload, null);
        if (!trigger.enabled()) {
            throw OutboxRefusedException.unprocessable("trigger-disabled", "trigger " + triggerId + " is disabled");
        }
        Optional<String> held = holds.heldBecause(app, trigger.id());
        if (held.isPresent()) {
            throw OutboxRefusedException.conflict("held", "On hold",
                    held.get() + ": an invoke would wait until the release");
        }
        // everything the answer needs is read now: the request's context is gone once it is suspended
        String principal = Callers.name(caller);
        String instance = uri.getRequestUri().getRawPath();
        NewOutboxRow row = NewOutboxRow.to(app, trigger.sourceKind(), trigger.id(), text)
                .withScript(trigger.scriptId().orElse(null))
                .withOrigin(principal);

        if (timeout == 0) {
            // no wait, so no slot: answered at once like before
            InvokeRequests.Started started = start(principal, key, body, row, traceparent, tracestate);
            async.resume(answer(stored.find(started.replyId()), started, instance));
            return;
        }
        WaitingInvokes.Slot slot = waiting.take(principal); // before anything is written: a refusal leaves nothing
        InvokeRequests.Started started;
        try {
            started = start(principal, key, body, row, traceparent, tracestate);
        } catch (RuntimeException e) {
            slot.close();
            throw e;
        }
        async.setTimeout(timeout + BACKSTOP_MILLIS, TimeUnit.MILLISECONDS);
        Replies.Wait wait = replies.await(started.replyId(), timeout, reply -> {
            slot.close();
            async.resume(answer(reply, started, instance));
        });
        async.register(new Release(wait, slot));
        async.setTimeoutHandler(r -> {
            wait.cancel();
            slot.close();
            r.resume(answer(Optional.empty(), started, instance));
        });
    }

    /** Commits the row before any wait; a repeated Idempotency-Key starts nothing and waits for the first request's answer. */
    private InvokeRequests.Started start(String principal, String key, JsonValue body, NewOutboxRow row,
            List<String> traceparent, List<String> tracestate) {
        try (CurrentTrace.Scope trace = Payloads.traced(traceparent, tracestate)) {
            return requests.start(principal, key, uri.getPath(), String.valueOf(body), row,
                    Locations.of(uri, "replies"));
        }
    }

    /** 200 with the target's answer (502 when it refused, 409 when the row was cancelled), or 202 with where to fetch it later. */
    private static Response answer(Optional<StoredReplies.Reply> reply, InvokeRequests.Started started,
            String instance) {
        return reply.map(r -> ReplyAnswers.of(r, instance))
                .orElseGet(() -> Response.fromResponse(started.pending().toResponse())
                        .header("Outbox-Row-Id", started.row().toString())
                        .header("Retry-After", "1")
                        .build());
    }

    /**
     * Gives the wait and its slot back however the suspended request ends: answered, failed, or the
     * client gone (where the server tells; otherwise the wait's own deadline ends it).
     */
    private record Release(Replies.Wait pending,
            WaitingInvokes.Slot slot) implements CompletionCallback, ConnectionCallback {
        @Override
        public void onComplete(Throwable failure) {
            pending.cancel();
            slot.close();
        }

        @Override
        public void onDisconnect(AsyncResponse disconnected) {
            pending.cancel();
            slot.close();
        }
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
        throw OutboxRefusedException.invalid("timeoutMs",
                "must be a whole number of milliseconds from 0 to " + maxTimeoutMillis);
    }
}
