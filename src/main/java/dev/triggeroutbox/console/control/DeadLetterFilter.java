package dev.triggeroutbox.console.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.UUID;

/**
 * Which dead letters a page or a bulk replay is about: an app, a source kind and a piece of the
 * last error (case-insensitive, taken literally), each optional.
 */
public record DeadLetterFilter(AppId app, SourceKind kind, String errorText) {

    /** The longest error text one can filter by; longer ones are refused, not cut. */
    public static final int MAX_ERROR_TEXT = 200;

    /** The WHERE condition; {@link #bind} fills its six parameters. */
    static final String WHERE = """
            (?::uuid IS NULL OR app_id = ?::uuid)
            AND (?::text IS NULL OR source_kind = ?::text)
            AND (?::text IS NULL OR last_error ILIKE '%' || ? || '%' ESCAPE '\\')""";

    public boolean isEmpty() {
        return app == null && kind == null && errorText == null;
    }

    /** Binds the six parameters of {@link #WHERE} starting at {@code first}; returns the next index. */
    int bind(PreparedStatement ps, int first) throws SQLException {
        UUID appId = app == null ? null : app.value();
        String wire = kind == null ? null : kind.wire();
        String like = errorText == null ? null : errorText.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
        ps.setObject(first, appId, Types.OTHER);
        ps.setObject(first + 1, appId, Types.OTHER);
        ps.setString(first + 2, wire);
        ps.setString(first + 3, wire);
        ps.setString(first + 4, like);
        ps.setString(first + 5, like);
        return first + 6;
    }

    /** As the audit record keeps it. */
    public JsonObject json() {
        JsonObjectBuilder json = Jsons.object();
        if (app != null) {
            json.add("appId", app.toString());
        }
        if (kind != null) {
            json.add("sourceKind", kind.wire());
        }
        if (errorText != null) {
            json.add("error", errorText);
        }
        return json.build();
    }
}
