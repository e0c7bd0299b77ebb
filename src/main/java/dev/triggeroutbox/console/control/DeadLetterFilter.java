package dev.triggeroutbox.console.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.UUID;

/**
 * Which dead letters a page, a group list or a bulk replay or discard is about: an app, a source kind, a piece of
 * the last error (case-insensitive, taken literally), a trigger, a failure group (the last error as
 * {@code outbox_error_group} gives it, V18, exactly) and an ordering key (the lane's, exactly), each optional.
 */
public record DeadLetterFilter(AppId app, SourceKind kind, String errorText, TriggerId trigger, String errorGroup,
        String orderingKey) {

    /** The longest error text one can filter by; longer ones are refused, not cut. */
    public static final int MAX_ERROR_TEXT = 200;
    /** The longest failure group one can name (a group is at most the first 1,000 characters of an error, each part replaced by at most 6). */
    public static final int MAX_ERROR_GROUP = 6_000;

    /** The WHERE condition; {@link #bind} fills its twelve parameters. */
    static final String WHERE = """
            (?::uuid IS NULL OR app_id = ?::uuid)
            AND (?::text IS NULL OR source_kind = ?::text)
            AND (?::text IS NULL OR last_error ILIKE '%' || ? || '%' ESCAPE '\\')
            AND (?::uuid IS NULL OR trigger_id = ?::uuid)
            AND (?::text IS NULL OR outbox_error_group(last_error) = ?::text)
            AND (?::text IS NULL OR ordering_key = ?::text)""";

    public DeadLetterFilter(AppId app, SourceKind kind, String errorText) {
        this(app, kind, errorText, null, null, null);
    }

    public boolean isEmpty() {
        return app == null && kind == null && errorText == null && trigger == null && errorGroup == null
                && orderingKey == null;
    }

    /** Binds the twelve parameters of {@link #WHERE} starting at {@code first}; returns the next index. */
    int bind(PreparedStatement ps, int first) throws SQLException {
        UUID appId = app == null ? null : app.value();
        String wire = kind == null ? null : kind.wire();
        String like = errorText == null ? null : errorText.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
        UUID triggerId = trigger == null ? null : trigger.value();
        ps.setObject(first, appId, Types.OTHER);
        ps.setObject(first + 1, appId, Types.OTHER);
        ps.setString(first + 2, wire);
        ps.setString(first + 3, wire);
        ps.setString(first + 4, like);
        ps.setString(first + 5, like);
        ps.setObject(first + 6, triggerId, Types.OTHER);
        ps.setObject(first + 7, triggerId, Types.OTHER);
        ps.setString(first + 8, errorGroup);
        ps.setString(first + 9, errorGroup);
        ps.setString(first + 10, orderingKey);
        ps.setString(first + 11, orderingKey);
        return first + 12;
    }
}
