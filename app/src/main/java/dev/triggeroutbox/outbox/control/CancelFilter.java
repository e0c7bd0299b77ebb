package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.Where;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.OffsetDateTime;

/**
 * Which outbox rows a bulk cancel is about: an app, a trigger, a source kind, an ordering key (a lane, or the same key
 * in every trigger's lanes) and rows created before a time, each optional.
 */
public record CancelFilter(AppId app, TriggerId trigger, SourceKind kind, OffsetDateTime olderThan,
        String orderingKey) {

    /** A filter without an ordering key. */
    public CancelFilter(AppId app, TriggerId trigger, SourceKind kind, OffsetDateTime olderThan) {
        this(app, trigger, kind, olderThan, null);
    }

    public boolean isEmpty() {
        return app == null && trigger == null && kind == null && olderThan == null && orderingKey == null;
    }

    /** The condition on outbox rows: the filters given, each binding its own value. */
    Where where() {
        return new Where()
                .uuid("app_id = ?", app == null ? null : app.value())
                .uuid("trigger_id = ?", trigger == null ? null : trigger.value())
                .text("source_kind = ?", kind == null ? null : kind.wire())
                .timestamp("created_at < ?", olderThan)
                .text("ordering_key = ?", orderingKey);
    }

    /** As the audit record keeps it. */
    public JsonObject json() {
        JsonObjectBuilder json = Jsons.object();
        if (app != null) {
            json.add("appId", app.toString());
        }
        if (trigger != null) {
            json.add("triggerId", trigger.toString());
        }
        if (kind != null) {
            json.add("sourceKind", kind.wire());
        }
        if (olderThan != null) {
            json.add("olderThan", olderThan.toString());
        }
        if (orderingKey != null) {
            json.add("orderingKey", orderingKey);
        }
        return json.build();
    }
}
