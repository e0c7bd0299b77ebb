package dev.triggeroutbox.triggers.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.holds.control.Holds;
import dev.triggeroutbox.outbox.boundary.AppAccess;
import dev.triggeroutbox.outbox.boundary.Payloads;
import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.rest.control.Locations;
import dev.triggeroutbox.targets.control.WebhookSettings;
import dev.triggeroutbox.targets.control.WebhookSignature;
import dev.triggeroutbox.targets.entity.KafkaKey;
import dev.triggeroutbox.triggers.control.TargetRules;
import dev.triggeroutbox.triggers.control.Triggers;
import dev.triggeroutbox.triggers.entity.LanePolicy;
import dev.triggeroutbox.triggers.entity.Schedule;
import dev.triggeroutbox.triggers.entity.TargetType;
import dev.triggeroutbox.triggers.entity.Trigger;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Set;

/** {@code /apps/{appId}/triggers}: admins register and manage where an app's events go. */
@Path("apps/{appId}/triggers")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class TriggersResource {

    private static final Set<String> FIELDS = Set.of("sourceKind", "target", "scriptId", "maxAttempts", "enabled",
            "schedule", "timezone", "misfire", "onDeadLetter");
    private static final Set<String> TARGET_FIELDS = Set.of("type", "url", "name", "destination", "topic", "key");

    @Inject
    Triggers triggers;

    @Inject
    TargetRules targetRules;

    @Inject
    IdempotencyKeys idempotency;

    @Inject
    WebhookSettings webhooks;

    @Inject
    Holds holds;

    @Inject
    CommitWakeup wakeup;

    @Context
    SecurityContext caller;

    @Context
    UriInfo uri;

    @PathParam("appId")
    String appIdText;

    /** The fields of a create or replace request, checked. */
    private record Definition(SourceKind kind, TargetType type, String target, KafkaKey key, ScriptId script,
            Integer maxAttempts, boolean enabled, Schedule schedule, LanePolicy onDeadLetter) {
    }

    private AppId app() {
        AppId app = Callers.pathId(appIdText, AppId::parse, "app");
        AppAccess.requireApp(caller, app);
        return app;
    }

    private Trigger trigger(String id) {
        AppId app = app();
        return triggers.find(app, Callers.pathId(id, TriggerId::parse, "trigger"))
                .orElseThrow(() -> OutboxRefusedException.notFound("trigger " + id));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public Response create(@HeaderParam("Idempotency-Key") String key, JsonValue body) {
        AppId app = app();
        return idempotency.once(Callers.name(caller), key, "POST", uri.getPath(), String.valueOf(body), () -> {
            Definition d = definition(body);
            String secret = d.type() == TargetType.WEBHOOK ? WebhookSignature.newSecret() : null;
            Trigger t = triggers.create(app, d.kind(), d.type(), d.target(), d.key(), secret, d.script(),
                    d.maxAttempts(), d.enabled());
            t.onDeadLetter(d.onDeadLetter());
            triggers.schedule(t, d.schedule(), false);
            JsonObject json = TriggerJson.of(t, true).build();
            return new IdempotencyKeys.Answer(201,
                    Locations.of(uri, "apps", app.toString(), "triggers", t.id().toString()),
                    json.toString());
        }, TriggersResource::withoutSecret).toResponse();
    }

    /** The answer a repeat with the same Idempotency-Key gets: the secret is shown once, to the first. */
    private static IdempotencyKeys.Answer withoutSecret(IdempotencyKeys.Answer first) {
        JsonObject json = Jsons.reader(first.body()).readObject();
        if (!json.containsKey("secret")) {
            return first;
        }
        JsonObjectBuilder repeat = Jsons.object();
        json.forEach((name, value) -> {
            if (!name.equals("secret")) {
                repeat.add(name, value);
            }
        });
        return new IdempotencyKeys.Answer(first.status(), first.location(), repeat.build().toString());
    }

    @GET
    public JsonValue list() {
        JsonArrayBuilder items = Jsons.array();
        triggers.list(app()).forEach(t -> items.add(TriggerJson.of(t, false).build()));
        return items.build();
    }

    @GET
    @Path("{id}")
    public JsonObject get(@PathParam("id") String id) {
        return TriggerJson.of(trigger(id), false).build();
    }

    /** Replaces the trigger's definition; the id and the webhook secret stay. */
    @PUT
    @Path("{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional(rollbackOn = Exception.class)
    public JsonObject replace(@PathParam("id") String id, JsonValue body) {
        Trigger t = trigger(id);
        Definition d = definition(body);
        boolean newSecret = d.type() == TargetType.WEBHOOK && t.secret().isEmpty();
        boolean wasEnabled = t.enabled();
        t.change(d.kind(), d.type(), d.target(), d.key(), d.script(), d.maxAttempts(), d.enabled());
        t.onDeadLetter(d.onDeadLetter());
        triggers.schedule(t, d.schedule(), wasEnabled);
        if (newSecret) {
            t.rotateSecret(WebhookSignature.newSecret());
        }
        if (t.enabled() && !wasEnabled) {
            // the rows its disable held come due (the change is flushed first: unpark reads the trigger in SQL)
            triggers.flush();
            wakeup.revived(holds.unpark(t.appId(), t.id()));
        }
        return TriggerJson.of(t, newSecret).build();
    }

    /**
     * Issues a new webhook secret, answered with the trigger once, as at creation (a repeat with the same
     * Idempotency-Key answers the trigger without it and rotates nothing). The replaced secret keeps
     * signing beside the new one until {@code previousSecretExpiresAt} (outbox.webhook.secret-overlap-ms).
     * Takes no body (or {@code {}}): the secret is always the server's. Same roles as replacing the trigger.
     */
    @POST
    @Path("{id}/secret")
    @Transactional(rollbackOn = Exception.class)
    public Response rotateSecret(@PathParam("id") String id, @HeaderParam("Idempotency-Key") String key, String body) {
        JsonBody.requireEmpty(body, "must be empty: the new secret is made by the server");
        app();
        return idempotency.once(Callers.name(caller), key, "POST", uri.getPath(), "", () -> {
            Trigger t = trigger(id);
            if (t.targetType() != TargetType.WEBHOOK) {
                throw OutboxRefusedException.conflict("not-a-webhook", "Not a webhook trigger",
                        "trigger " + id + " delivers to a "
                                + t.targetType().wire() + " target; only webhook triggers have a signing secret");
            }
            triggers.rotateSecret(t, WebhookSignature.newSecret(), webhooks.secretOverlapMillis());
            return new IdempotencyKeys.Answer(200, null, TriggerJson.of(t, true).build().toString());
        }, TriggersResource::withoutSecret).toResponse();
    }

    @DELETE
    @Path("{id}")
    @Transactional(rollbackOn = Exception.class)
    public Response delete(@PathParam("id") String id) {
        AppId app = app();
        TriggerId trigger = Callers.pathId(id, TriggerId::parse, "trigger");
        if (!triggers.delete(app, trigger)) {
            throw OutboxRefusedException.notFound("trigger " + id);
        }
        // rows it held come due, and dead-letter as rows of a trigger that does not exist
        wakeup.revived(holds.unpark(app, trigger));
        return Response.noContent().build();
    }

    /**
     * Puts the trigger on hold: from the commit on its rows are not claimed (they show {@code held}; those in
     * flight finish their attempt), spend no attempt and never dead-letter, until {@link #release}. Takes no body;
     * a trigger already on hold is answered as it is.
     */
    @POST
    @Path("{id}/hold")
    @Transactional(rollbackOn = Exception.class)
    public JsonObject hold(@PathParam("id") String id, String body) {
        JsonBody.requireEmpty(body, "must be empty: a hold or release takes no fields");
        Trigger t = trigger(id);
        triggers.hold(t, true);
        return TriggerJson.of(t, false).build();
    }

    /** Takes the trigger off hold: its held rows come due in the order they were due (unless its app or a disable still holds them). */
    @POST
    @Path("{id}/release")
    @Transactional(rollbackOn = Exception.class)
    public JsonObject release(@PathParam("id") String id, String body) {
        JsonBody.requireEmpty(body, "must be empty: a hold or release takes no fields");
        Trigger t = trigger(id);
        if (triggers.hold(t, false)) {
            wakeup.revived(holds.unpark(t.appId(), t.id()));
        }
        return TriggerJson.of(t, false).build();
    }

    private Definition definition(JsonValue body) {
        JsonBody b = JsonBody.of(body, FIELDS);
        SourceKind kind = Payloads.sourceKind(b, "sourceKind", true);
        ScriptId script = b.parsed("scriptId", false, ScriptId::parse, "must be a UUID");
        Integer maxAttempts = b.integer("maxAttempts", false, 1, 1000);
        Boolean enabled = b.bool("enabled", false);
        LanePolicy onDeadLetter = b.parsed("onDeadLetter", false,
                w -> LanePolicy.fromWire(w).orElseThrow(IllegalArgumentException::new), "must be continue or block");
        JsonBody target = b.object("target", true, TARGET_FIELDS);
        TargetType type = null;
        String where = null;
        KafkaKey key = null;
        if (target != null) {
            type = target.parsed("type", true, w -> TargetType.fromWire(w).orElseThrow(IllegalArgumentException::new),
                    "must be one of webhook, handler, jms, kafka");
            if (type != null) {
                where = targetRules.read(type, target);
                key = targetRules.key(type, target);
            }
        }
        Schedule schedule = schedule(b, kind);
        b.validate();
        targetRules.check(type, where);
        return new Definition(kind, type, where, key, script, maxAttempts, enabled == null || enabled, schedule,
                onDeadLetter);
    }

    /** Only cron triggers have a schedule (and may go without one). */
    private static Schedule schedule(JsonBody b, SourceKind kind) {
        String cron = b.string("schedule", false);
        String zone = b.string("timezone", false);
        Schedule.Misfire misfire = b.parsed("misfire", false,
                w -> Schedule.Misfire.fromWire(w).orElseThrow(IllegalArgumentException::new),
                "must be fire_once or skip");
        if (kind != SourceKind.CRON) {
            for (String field : List.of("schedule", "timezone", "misfire")) {
                if (b.present(field)) {
                    b.error(field, "applies only to triggers of sourceKind cron");
                }
            }
            return null;
        }
        if (cron == null) {
            // a cron trigger without a schedule never fires by itself; it hears cron events published to it
            if (zone != null || misfire != null) {
                b.error("schedule",
                        "is required with timezone or misfire, e.g. \"0 */5 * * * *\" (every five minutes)");
            }
            return null;
        }
        try {
            return Schedule.of(cron, zone, misfire);
        } catch (IllegalArgumentException e) {
            b.error(e.getMessage().startsWith("unknown time zone") ? "timezone" : "schedule", e.getMessage());
            return null;
        }
    }
}
