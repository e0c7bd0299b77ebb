package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * RFC 9457 problem documents. One shape for every error the outbox answers, from JAX-RS and from
 * the container's error pages alike: {@code type}, {@code title}, {@code status}, {@code detail},
 * {@code instance}, and {@code errors} for invalid fields.
 */
public final class Problems {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_BASE = "urn:trigger-outbox:problem:";

    private Problems() {
    }

    public static String json(int status, String type, String title, String detail, String instance,
            List<OutboxRefusedException.FieldError> errors) {
        JsonObjectBuilder problem = Jsons.object()
                .add("type", TYPE_BASE + type)
                .add("title", title)
                .add("status", status);
        if (detail != null) {
            problem.add("detail", detail);
        }
        if (instance != null) {
            problem.add("instance", instance);
        }
        if (!errors.isEmpty()) {
            JsonArrayBuilder list = Jsons.array();
            errors.forEach(e -> list.add(Jsons.object().add("field", e.field()).add("message", e.message())));
            problem.add("errors", list);
        }
        return problem.build().toString();
    }

    /** A refusal as its problem: the status its reason calls for, and {@code Retry-After} when waiting can help. */
    public static Response response(OutboxRefusedException e, String instance) {
        int status = status(e.reason());
        Response.ResponseBuilder r = Response.status(status)
                .type(MEDIA_TYPE)
                .entity(json(status, e.type(), e.title(), e.getMessage(), instance, e.errors()));
        e.retryAfter().ifPresent(wait -> r.header("Retry-After", Long.toString(wait.toSeconds())));
        return r.build();
    }

    /** The HTTP status of each reason for a refusal: only the REST layer knows them. */
    public static int status(OutboxRefusedException.Reason reason) {
        return switch (reason) {
            case INVALID -> 400;
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case TOO_LARGE -> 413;
            case UNPROCESSABLE -> 422;
            case TOO_MANY -> 429;
        };
    }

    public static Response response(int status, String type, String title, String detail, String instance) {
        return Response.status(status).type(MEDIA_TYPE)
                .entity(json(status, type, title, detail, instance, List.of())).build();
    }
}
