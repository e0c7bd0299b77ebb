package dev.triggeroutbox.triggers.boundary;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.triggers.control.TargetRules;
import dev.triggeroutbox.triggers.entity.Trigger;
import jakarta.json.JsonObjectBuilder;
import java.time.format.DateTimeFormatter;

/**
 * A trigger as the API shows it, under {@code /apps/{appId}/triggers} and in the console's list of every app's
 * triggers (which adds its last hour and circuit): one rendering, so the two cannot drift apart. The webhook secret
 * only when asked for (at creation and rotation).
 */
public final class TriggerJson {

    private TriggerJson() {
    }

    /** A builder: the console adds its fields after the trigger's. */
    public static JsonObjectBuilder of(Trigger t, boolean withSecret) {
        JsonObjectBuilder target = Jsons.object().add("type", t.targetType().wire())
                .add(TargetRules.field(t.targetType()), t.target());
        t.targetKey().ifPresent(k -> target.add("key", k.wire()));
        JsonObjectBuilder json = Jsons.object()
                .add("id", t.id().toString())
                .add("appId", t.appId().toString())
                .add("sourceKind", t.sourceKind().wire())
                .add("target", target)
                .add("enabled", t.enabled())
                .add("held", t.held())
                .add("onDeadLetter", t.onDeadLetter().wire())
                .add("createdAt", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.createdAt()))
                .add("updatedAt", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.updatedAt()));
        t.scriptId().ifPresent(s -> json.add("scriptId", s.toString()));
        t.maxAttempts().ifPresent(m -> json.add("maxAttempts", m));
        t.schedule().ifPresent(s -> json.add("schedule", s.cron()).add("timezone", s.timezone())
                .add("misfire", s.misfire().wire()));
        t.nextFireAt().ifPresent(n -> json.add("nextFireAt", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(n)));
        t.lastFiredAt().ifPresent(n -> json.add("lastFiredAt", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(n)));
        t.previousSecretExpiresAt()
                .ifPresent(e -> json.add("previousSecretExpiresAt", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(e)));
        if (withSecret) {
            t.secret().ifPresent(s -> json.add("secret", s));
        }
        return json;
    }
}
