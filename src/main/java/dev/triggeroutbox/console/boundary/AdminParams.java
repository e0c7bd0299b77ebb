package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.console.control.DeadLetterFilter;
import dev.triggeroutbox.console.control.PageCursor;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.ApiException;
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
            throw ApiException.invalid(name, expected);
        }
    }

    static int bounded(String name, String value, int fallback, int min, int max) {
        Integer n = parse(name, value, Integer::parseInt, "must be a whole number");
        if (n == null) {
            return fallback;
        }
        if (n < min || n > max) {
            throw ApiException.invalid(name, "must be between " + min + " and " + max);
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

    static PageCursor cursor(String value) {
        return parse("cursor", value, PageCursor::decode, "is not a cursor from a previous page");
    }

    static DeadLetterFilter deadLetterFilter(String appId, String sourceKind, String error) {
        if (error != null && (error.isBlank() || error.length() > DeadLetterFilter.MAX_ERROR_TEXT)) {
            throw ApiException.invalid("error", "must be 1 to " + DeadLetterFilter.MAX_ERROR_TEXT + " characters");
        }
        return new DeadLetterFilter(app(appId), kind(sourceKind), error);
    }
}
