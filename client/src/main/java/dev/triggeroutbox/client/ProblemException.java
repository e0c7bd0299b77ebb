package dev.triggeroutbox.client;

import java.util.List;
import java.util.Optional;

/**
 * A refusal of the outbox's REST API, read from its {@code application/problem+json} answer: the HTTP status,
 * the problem type without its {@code urn:trigger-outbox:problem:} prefix ({@code not-found},
 * {@code invalid-request}, {@code reply-taken}, ...), its title and detail, and the fields it names. A 429 or
 * 503 says when to try again.
 */
public class ProblemException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** One wrong field of a request body, named as the API names it ({@code payload}, {@code events[3].sourceKind}). */
    public record FieldError(String field, String message) {
    }

    private final int status;
    private final String type;
    private final String title;
    private final String detail;
    private final transient List<FieldError> errors;
    private final Long retryAfterSeconds;

    public ProblemException(int status, String type, String title, String detail, List<FieldError> errors,
            Long retryAfterSeconds) {
        super(status + " " + type + (detail == null ? "" : ": " + detail));
        this.status = status;
        this.type = type;
        this.title = title;
        this.detail = detail;
        this.errors = List.copyOf(errors);
        this.retryAfterSeconds = retryAfterSeconds;
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

    /** What went wrong with this request, in words (may be null). */
    public String detail() {
        return detail;
    }

    public List<FieldError> errors() {
        return errors;
    }

    /** The {@code Retry-After} of a 429 or 503, in seconds, when the answer had one. */
    public Optional<Long> retryAfterSeconds() {
        return Optional.ofNullable(retryAfterSeconds);
    }
}
