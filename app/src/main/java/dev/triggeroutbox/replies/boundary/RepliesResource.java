package dev.triggeroutbox.replies.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.boundary.AppAccess;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.replies.control.ReplyAnswers;
import dev.triggeroutbox.replies.control.StoredReplies;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.util.Optional;
import java.util.UUID;

/** {@code GET /replies/{id}}: the answer of an invoke whose wait ended first; 202 while it is on its way. */
@Path("replies/{id}")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class RepliesResource {

    @Inject
    StoredReplies replies;

    @Context
    SecurityContext caller;

    @Context
    UriInfo uri;

    @GET
    public Response get(@PathParam("id") String id) {
        UUID replyTo = Callers.pathId(id, OutboxId::parse, "reply").value();
        Optional<StoredReplies.Reply> reply = replies.find(replyTo);
        Optional<StoredReplies.Pending> pending = Optional.empty();
        if (reply.isEmpty()) {
            pending = replies.pending(replyTo);
            if (pending.isEmpty()) {
                // the row may have finished between the two looks (its answer and its removal commit together):
                // its answer is there now, or there is none
                reply = replies.find(replyTo);
            }
        }
        if (reply.isPresent() && AppAccess.mayReach(caller, new AppId(reply.get().appId()))) {
            return ReplyAnswers.of(reply.get(), uri.getRequestUri().getRawPath());
        }
        if (pending.isPresent() && AppAccess.mayReach(caller, new AppId(pending.get().appId()))) {
            return Response.accepted(Jsons.object().add("id", pending.get().row().toString())
                    .add("replyId", id).add("status", "pending").build()).header("Retry-After", "1").build();
        }
        throw OutboxRefusedException.notFound("reply " + id);
    }
}
