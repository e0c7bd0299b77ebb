package dev.triggeroutbox.api;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A call the outbox refuses, and nothing written: why ({@link #reason()}), the stable problem {@link #type()} slug,
 * a short {@link #title()}, the detail as the message, the wrong fields ({@link #errors()}) and, when trying again
 * later can help, how much later ({@link #retryAfter()}). Thrown by the Java API and by the outbox's own logic alike;
 * the REST API answers it as {@code application/problem+json} ({@code urn:trigger-outbox:problem:<type>}) with the
 * status its reason calls for. Its texts are written for the caller: they never carry SQL, class names or stack
 * traces.
 */
public class OutboxRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why a call is refused. */
    public enum Reason {
        /** A value is malformed or out of its range. */
        INVALID,
        /** What the call names does not exist, or the caller may not see it. */
        NOT_FOUND,
        /** What the call names is in a state that does not allow it (taken, held, already finished). */
        CONFLICT,
        /** The request, or a payload in it, is larger than a configured limit. */
        TOO_LARGE,
        /** Well formed, but the outbox cannot act on it (a disabled trigger, a refused address, a cascade too deep). */
        UNPROCESSABLE,
        /** More than a limit allows right now; {@link #retryAfter()} says when to try again. */
        TOO_MANY
    }

    /** One wrong field of a request: its name (JSON pointer-ish, {@code events[2].payload}) and what is wrong with it. */
    public record FieldError(String field, String message) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    private final Reason reason;
    private final String type;
    private final String title;
    private final List<FieldError> errors;
    private final Duration retryAfter;

    public OutboxRefusedException(Reason reason, String type, String title, String detail) {
        this(reason, type, title, detail, List.of(), null);
    }

    /**
     * @param retryAfter when trying again can help (null: not by waiting)
     */
    public OutboxRefusedException(Reason reason, String type, String title, String detail, List<FieldError> errors,
            Duration retryAfter) {
        super(detail, null, false, false);
        this.reason = reason;
        this.type = type;
        this.title = title;
        this.errors = List.copyOf(errors);
        this.retryAfter = retryAfter;
    }

    /** {@code errors} are invalid: type {@code validation}, the detail names the one field or counts them. */
    public static OutboxRefusedException invalid(List<FieldError> errors) {
        String detail = errors.size() == 1
                ? errors.get(0).field() + ": " + errors.get(0).message()
                : errors.size() + " fields are invalid";
        return new OutboxRefusedException(Reason.INVALID, "validation", "Invalid request", detail, errors, null);
    }

    public static OutboxRefusedException invalid(String field, String message) {
        return invalid(List.of(new FieldError(field, message)));
    }

    /** {@code what} ("trigger 4f…") does not exist, or is not the caller's to see. */
    public static OutboxRefusedException notFound(String what) {
        return new OutboxRefusedException(Reason.NOT_FOUND, "not-found", "Not found", what + " not found");
    }

    /** What the call names is in a state that does not allow it; {@code title} names the state ("On hold"). */
    public static OutboxRefusedException conflict(String type, String title, String detail) {
        return new OutboxRefusedException(Reason.CONFLICT, type, title, detail);
    }

    public static OutboxRefusedException unprocessable(String type, String detail) {
        return new OutboxRefusedException(Reason.UNPROCESSABLE, type, "Request cannot be processed", detail);
    }

    /** Larger than a limit; {@code detail} says which limit and its setting. */
    public static OutboxRefusedException tooLarge(String detail) {
        return new OutboxRefusedException(Reason.TOO_LARGE, "payload-too-large", "Payload too large", detail);
    }

    /** A request body larger than {@code outbox.max-payload-bytes}. */
    public static OutboxRefusedException tooLarge(long limit) {
        return tooLarge("the request body exceeds the limit of " + limit + " bytes (outbox.max-payload-bytes)");
    }

    /** More than a limit allows right now; try again after {@code retryAfter}. */
    public static OutboxRefusedException tooMany(String type, String detail, Duration retryAfter) {
        return new OutboxRefusedException(Reason.TOO_MANY, type, "Too many requests", detail, List.of(), retryAfter);
    }

    public Reason reason() {
        return reason;
    }

    /** The problem type's stable slug ({@code validation}, {@code not-found}, {@code reply-taken}, …). */
    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    public List<FieldError> errors() {
        return errors;
    }

    /** When trying again can help, how long to wait first. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
