package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.console.control.DeadLetterFilter;
import dev.triggeroutbox.console.control.DeadLetters;
import dev.triggeroutbox.console.entity.DeadLetter;
import dev.triggeroutbox.console.entity.DeadLetterGroup;
import dev.triggeroutbox.console.entity.KeptDeadLetter;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.UUID;

/**
 * Dead letters as {@code /admin/dead-letters} shows them, and a dead row's under {@code GET /admin/rows/{id}}; the
 * filter of a bulk replay or discard as its audit record keeps it.
 */
final class DeadLetterJson {

    private DeadLetterJson() {
    }

    static JsonObject page(DeadLetters.Page page) {
        JsonArrayBuilder items = Jsons.array();
        page.items().forEach(d -> items.add(summary(d)));
        return ConsoleJson.page(items, page.next() == null ? null : page.next().encode());
    }

    /** The dead letter with everything kept about it, and its trigger's target (null once the trigger is gone). */
    static JsonObject kept(KeptDeadLetter k) {
        JsonObjectBuilder json = summary(k.letter());
        ConsoleJson.add(json, "scriptId", k.scriptId() == null ? null : k.scriptId().value());
        ConsoleJson.add(json, "replyTo", k.replyTo());
        ConsoleJson.add(json, "originPrincipal", k.originPrincipal());
        ConsoleJson.add(json, "deadBy", k.deadBy());
        ConsoleJson.add(json, "maxAttempts", k.maxAttempts());
        if (k.trigger() == null) {
            return json.addNull("trigger").build();
        }
        return json.add("trigger", Jsons.object().add("targetType", k.trigger().targetType())
                .add("target", k.trigger().target()).add("enabled", k.trigger().enabled())).build();
    }

    private static JsonObjectBuilder summary(DeadLetter d) {
        JsonObjectBuilder json = Jsons.object()
                .add("id", d.id().toString())
                .add("appId", d.appId().toString())
                .add("sourceKind", d.sourceKind())
                .add("attemptCount", d.attemptCount())
                .add("triggerDepth", d.triggerDepth())
                .add("lastError", d.lastError())
                .add("createdAt", ConsoleJson.utc(d.createdAt()))
                .add("deadAt", ConsoleJson.utc(d.deadAt()));
        ConsoleJson.add(json, "triggerId", uuid(d.triggerId()));
        ConsoleJson.add(json, "rootExecutionId", d.rootExecutionId() == null ? null : d.rootExecutionId().value());
        ConsoleJson.add(json, "orderingKey", d.orderingKey());
        return json.add("payload", Jsons.reader(d.payload()).readValue());
    }

    static JsonObject groups(DeadLetters.Groups groups) {
        JsonArrayBuilder items = Jsons.array();
        for (DeadLetterGroup g : groups.items()) {
            JsonObjectBuilder group = Jsons.object()
                    .add("appId", g.appId().toString())
                    .add("sourceKind", g.sourceKind())
                    .add("errorGroup", g.errorGroup())
                    .add("count", g.count())
                    .add("firstSeen", ConsoleJson.utc(g.firstSeen()))
                    .add("lastSeen", ConsoleJson.utc(g.lastSeen()))
                    .add("sampleId", g.sampleId().toString())
                    .add("sampleError", g.sampleError());
            items.add(ConsoleJson.add(group, "triggerId", uuid(g.triggerId())));
        }
        return ConsoleJson.page(items, groups.nextOffset());
    }

    /** A bulk replay's or discard's filter as the audit record keeps it: the fields given, no nulls. */
    static JsonObject filter(DeadLetterFilter f) {
        JsonObjectBuilder json = Jsons.object();
        if (f.app() != null) {
            json.add("appId", f.app().toString());
        }
        if (f.kind() != null) {
            json.add("sourceKind", f.kind().wire());
        }
        if (f.errorText() != null) {
            json.add("error", f.errorText());
        }
        if (f.trigger() != null) {
            json.add("triggerId", f.trigger().toString());
        }
        if (f.errorGroup() != null) {
            json.add("errorGroup", f.errorGroup());
        }
        if (f.orderingKey() != null) {
            json.add("orderingKey", f.orderingKey());
        }
        return json.build();
    }

    private static UUID uuid(TriggerId id) {
        return id == null ? null : id.value();
    }
}
