package dev.triggeroutbox.email.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.api.OutboxRefusedException.Reason;
import dev.triggeroutbox.email.control.InboundMail;
import dev.triggeroutbox.email.control.JsonMail;
import dev.triggeroutbox.email.control.MalformedMailException;
import dev.triggeroutbox.email.control.MimeMail;
import dev.triggeroutbox.outbox.boundary.AppAccess;
import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.boundary.Payloads;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
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

/**
 * {@code /apps/{appId}/email}: a mail gateway POSTs an inbound message, raw ({@code message/rfc822})
 * or already parsed ({@code application/json}); it becomes one {@code email} event for the app's
 * matching triggers, exactly like a publish. A message that cannot be read changes nothing.
 */
@Path("apps/{appId}/email")
@RequestScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
public class EmailResource {

    public static final String RFC822 = "message/rfc822";

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
    @Consumes(RFC822)
    @Transactional(rollbackOn = Exception.class)
    public Response raw(@PathParam("appId") String appId, @HeaderParam("Idempotency-Key") String key, byte[] message) {
        AppId app = app(appId);
        InboundMail mail;
        try {
            mail = MimeMail.parse(message == null ? new byte[0] : message);
        } catch (MalformedMailException e) {
            throw new OutboxRefusedException(Reason.INVALID, "email-malformed", "Malformed email", e.getMessage());
        }
        return publish(app, key, mail);
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public Response parsed(@PathParam("appId") String appId, @HeaderParam("Idempotency-Key") String key,
            JsonValue body) {
        AppId app = app(appId);
        return publish(app, key, JsonMail.read(body));
    }

    private AppId app(String appId) {
        AppId app = Callers.pathId(appId, AppId::parse, "app");
        AppAccess.requireApp(caller, app);
        return app;
    }

    private Response publish(AppId app, String key, InboundMail mail) {
        String payload = limits.payloadText(mail.toJson(), null);
        // the fingerprint is the event, so a retry of either form with the same key replays
        return idempotency.once(Callers.name(caller), key, "POST", uri.getPath(), payload, () -> {
            return Payloads
                    .published(outbox.publish(app, SourceKind.EMAIL, payload, Callers.name(caller), null, 0, null));
        }).toResponse();
    }
}
