package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.console.control.DeadLetterFilter;
import dev.triggeroutbox.console.control.DeadLetters;
import dev.triggeroutbox.console.control.PageCursor;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OrderingKey;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import java.time.OffsetDateTime;
import java.util.function.Function;

/** Query parameters of the admin API, read strictly: a wrong one is a 400 naming it, never ignored. */
final class AdminParams {

    /** The largest page any admin list answers. */
    static final int MAX_PAGE = 500;
    static final int DEFAULT_PAGE = 50;

    private AdminParams() {
    }

    static <T> T parse(String name, String value, Function<String, T> parse, String expected) {
        if (value == null) {
            return null;
        }
        try {
            return parse.apply(value);
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw OutboxRefusedException.invalid(name, expected);
        }
    }

    static int bounded(String name, String value, int fallback, int min, int max) {
        Integer n = parse(name, value, Integer::parseInt, "must be a whole number");
        if (n == null) {
            return fallback;
        }
        if (n < min || n > max) {
            throw OutboxRefusedException.invalid(name, "must be between " + min + " and " + max);
        }
        return n;
    }

    static int limit(String value) {
        return bounded("limit", value, DEFAULT_PAGE, 1, MAX_PAGE);
    }

    static AppId app(String value) {
        return parse("appId", value, AppId::parse, "must be a UUID");
    }

    static SourceKind kind(String value) {
        return parse("sourceKind", value, w -> SourceKind.fromWire(w).orElseThrow(IllegalArgumentException::new),
                "must be one of " + SourceKind.wireNames());
    }

    /** An RFC 3339 time within the years 1 to 9999 (what PostgreSQL's timestamptz holds), or null. */
    static OffsetDateTime time(String name, String value) {
        OffsetDateTime t = parse(name, value, OffsetDateTime::parse,
                "must be an RFC 3339 time, e.g. 2026-12-03T10:00:00Z");
        if (t != null && (t.getYear() < 1 || t.getYear() > 9999)) {
            throw OutboxRefusedException.invalid(name, "must be a time between the years 1 and 9999");
        }
        return t;
    }

    static PageCursor cursor(String value) {
        return parse("cursor", value, PageCursor::decode, "is not a cursor from a previous page");
    }

    static DeadLetterFilter deadLetterFilter(String appId, String sourceKind, String error) {
        return deadLetterFilter(appId, sourceKind, error, null, null, null);
    }

    /**
     * {@code errorGroup}: a group as {@code GET /admin/dead-letters/groups} names it, matched exactly;
     * {@code orderingKey}: the lane's key, matched exactly.
     */
    static DeadLetterFilter deadLetterFilter(String appId, String sourceKind, String error, String triggerId,
            String errorGroup,
            String orderingKey) {
        if (error != null && (error.isBlank() || error.length() > DeadLetterFilter.MAX_ERROR_TEXT)) {
            throw OutboxRefusedException.invalid("error",
                    "must be 1 to " + DeadLetterFilter.MAX_ERROR_TEXT + " characters");
        }
        if (errorGroup != null && (errorGroup.isEmpty() || errorGroup.length() > DeadLetterFilter.MAX_ERROR_GROUP)) {
            throw OutboxRefusedException.invalid("errorGroup",
                    "must be 1 to " + DeadLetterFilter.MAX_ERROR_GROUP + " characters");
        }
        if (orderingKey != null && OrderingKey.problem(orderingKey) != null) {
            throw OutboxRefusedException.invalid("orderingKey", OrderingKey.problem(orderingKey));
        }
        TriggerId trigger = parse("triggerId", triggerId, TriggerId::parse, "must be a UUID");
        return new DeadLetterFilter(app(appId), kind(sourceKind), error, trigger, errorGroup, orderingKey);
    }

    /** A group page's cursor: where the previous page ended, a count of groups. */
    static int groupOffset(String cursor) {
        return cursor == null ? 0 : bounded("cursor", cursor, 0, 0, DeadLetters.MAX_GROUP_OFFSET);
    }
}
