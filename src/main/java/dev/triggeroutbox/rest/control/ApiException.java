package dev.triggeroutbox.rest.control;

import java.util.List;
import java.util.Map;

/**
 * A request the API refuses, with what to tell the caller. Mapped to {@code application/problem+json}
 * by {@code ProblemMappers}; its texts go to the client as they are, so they never carry SQL,
 * class names or stack traces.
 */
public class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** One wrong field of a request body: its JSON pointer-ish name and what is wrong with it. */
    public record FieldError(String field, String message) {
    }

    private final int status;
    private final String type;
    private final String title;
    private final List<FieldError> errors;
    private final Map<String, String> headers;

    public ApiException(int status, String type, String title, String detail) {
        this(status, type, title, detail, List.of(), Map.of());
    }

    public ApiException(int status, String type, String title, String detail, List<FieldError> errors,
            Map<String, String> headers) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
        this.errors = List.copyOf(errors);
        this.headers = Map.copyOf(headers);
    }

    public static ApiException invalid(List<FieldError> errors) {
        String detail = errors.size() == 1 ? errors.get(0).field() + ": " + errors.get(0).message()
                : errors.size() + " fields are invalid";
        return new ApiException(400, "validation", "Invalid request", detail, errors, Map.of());
    }

    public static ApiException invalid(String field, String message) {
        return invalid(List.of(new FieldError(field, message)));
    }

    public static ApiException notFound(String what) {
        return new ApiException(404, "not-found", "Not found", what + " not found");
    }

    public static ApiException unprocessable(String type, String detail) {
        return new ApiException(422, type, "Request cannot be processed", detail);
    }

    public static ApiException tooLarge(long limit) {
        return new ApiException(413, "payload-too-large", "Payload too large",
                "the request body exceeds the limit of " + limit + " bytes (outbox.max-payload-bytes)");
    }

    /** 429: the caller asks for more than a limit allows right now; {@code Retry-After} says when to try again. */
    public static ApiException tooMany(String type, String detail, long retryAfterSeconds) {
        return new ApiException(429, type, "Too many requests", detail, List.of(),
                Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    public List<FieldError> errors() {
        return errors;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
