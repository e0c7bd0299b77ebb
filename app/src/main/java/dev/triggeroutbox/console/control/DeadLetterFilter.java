package dev.triggeroutbox.console.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.Where;

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

    public DeadLetterFilter(AppId app, SourceKind kind, String errorText) {
        this(app, kind, errorText, null, null, null);
    }

    public boolean isEmpty() {
        return app == null && kind == null && errorText == null && trigger == null && errorGroup == null
                && orderingKey == null;
    }

    /** The condition on {@code dead_letters} columns: only the filters given. */
    Where where() {
        String like = errorText == null
                ? null
                : errorText.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
        return new Where()
                .uuid("app_id = ?", app == null ? null : app.value())
                .text("source_kind = ?", kind == null ? null : kind.wire())
                .text("last_error ILIKE '%' || ? || '%' ESCAPE '\\'", like)
                .uuid("trigger_id = ?", trigger == null ? null : trigger.value())
                .text("outbox_error_group(last_error) = ?", errorGroup)
                .text("ordering_key = ?", orderingKey);
    }
}
