package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * Which outbox rows a bulk cancel is about: an app, a trigger, a source kind, an ordering key (a lane, or the same key
 * in every trigger's lanes) and rows created before a time, each optional.
 */
public record CancelFilter(AppId app, TriggerId trigger, SourceKind kind, OffsetDateTime olderThan, String orderingKey) {

    /** The WHERE condition; {@link #bind} fills its ten parameters. */
    static final String WHERE = """
            (?::uuid IS NULL OR app_id = ?::uuid)
            AND (?::uuid IS NULL OR trigger_id = ?::uuid)
            AND (?::text IS NULL OR source_kind = ?::text)
            AND (?::timestamptz IS NULL OR created_at < ?::timestamptz)
            AND (?::text IS NULL OR ordering_key = ?::text)""";

    /** A filter without an ordering key. */
    public CancelFilter(AppId app, TriggerId trigger, SourceKind kind, OffsetDateTime olderThan) {
        this(app, trigger, kind, olderThan, null);
    }

    public boolean isEmpty() {
        return app == null && trigger == null && kind == null && olderThan == null && orderingKey == null;
    }

    /** Binds the ten parameters of {@link #WHERE} starting at {@code first}; returns the next index. */
    int bind(PreparedStatement ps, int first) throws SQLException {
        UUID appId = app == null ? null : app.value();
        UUID triggerId = trigger == null ? null : trigger.value();
        String wire = kind == null ? null : kind.wire();
        ps.setObject(first, appId, Types.OTHER);
        ps.setObject(first + 1, appId, Types.OTHER);
        ps.setObject(first + 2, triggerId, Types.OTHER);
        ps.setObject(first + 3, triggerId, Types.OTHER);
        ps.setString(first + 4, wire);
        ps.setString(first + 5, wire);
        ps.setObject(first + 6, olderThan, Types.TIMESTAMP_WITH_TIMEZONE);
        ps.setObject(first + 7, olderThan, Types.TIMESTAMP_WITH_TIMEZONE);
        ps.setString(first + 8, orderingKey);
        ps.setString(first + 9, orderingKey);
        return first + 10;
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
