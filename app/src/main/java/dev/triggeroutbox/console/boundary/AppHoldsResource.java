package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.holds.control.Holds;
import dev.triggeroutbox.outbox.boundary.AppAccess;
import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Holds on a whole app: {@code POST /admin/apps/{appId}/hold} and {@code …/release}, and {@code GET /admin/holds}
 * (every app on hold). While an app is on hold none of its rows is claimed (those in flight finish their attempt),
 * none spends an attempt or dead-letters; producers go on writing. Each change is audited in its own transaction.
 */
@Path("admin")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class AppHoldsResource {

    @Inject
    Holds holds;

    @Inject
    AuditLog audit;

    @Inject
    CommitWakeup wakeup;

    @Context
    SecurityContext caller;

    /** Takes no body; an app already on hold is answered as it stands, and nothing is recorded. */
    @POST
    @Path("apps/{appId}/hold")
    @Transactional(rollbackOn = Exception.class)
    public JsonObject hold(@PathParam("appId") String appId, String body) {
        AppId app = app(appId, body);
        if (holds.holdApp(app, Callers.name(caller))) {
            audit.record(Callers.name(caller), AuditLog.APP_HOLD, List.of(app.value()), null, 1);
        }
        return json(app, holds.appHold(app), 0);
    }

    /** Puts the app's held rows back in the order they were due (those of triggers still held stay held). */
    @POST
    @Path("apps/{appId}/release")
    @Transactional(rollbackOn = Exception.class)
    public JsonObject release(@PathParam("appId") String appId, String body) {
        AppId app = app(appId, body);
        OptionalInt rows = holds.releaseApp(app);
        if (rows.isPresent()) {
            audit.record(Callers.name(caller), AuditLog.APP_RELEASE, List.of(app.value()), null, rows.getAsInt());
            wakeup.revived(rows.getAsInt());
        }
        return json(app, Optional.empty(), rows.orElse(0));
    }

    @GET
    @Path("holds")
    public JsonObject list() {
        JsonArrayBuilder apps = Jsons.array();
        for (Holds.AppHold h : holds.appHolds(null)) {
            apps.add(json(new AppId(h.appId()), Optional.of(h), 0));
        }
        return Jsons.object().add("apps", apps).build();
    }

    private AppId app(String appId, String body) {
        JsonBody.requireEmpty(body, "must be empty: a hold or release takes no fields");
        AppId app = Callers.pathId(appId, AppId::parse, "app");
        AppAccess.requireApp(caller, app);
        return app;
    }

    /** {@code released}: rows a release put back (0 for a hold, or a release of an app that was not held). */
    private static JsonObject json(AppId app, Optional<Holds.AppHold> hold, int released) {
        JsonObjectBuilder json = Jsons.object().add("appId", app.toString()).add("held", hold.isPresent());
        hold.ifPresent(h -> {
            json.add("heldAt",
                    DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(h.heldAt().withOffsetSameInstant(ZoneOffset.UTC)));
            if (h.heldBy() == null) {
                json.addNull("heldBy");
            } else {
                json.add("heldBy", h.heldBy());
            }
        });
        if (hold.isEmpty()) {
            json.add("releasedRows", released);
        }
        return json.build();
    }
}
