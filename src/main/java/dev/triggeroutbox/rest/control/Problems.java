package dev.triggeroutbox.rest.control;

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
            List<ApiException.FieldError> errors) {
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

    public static Response response(ApiException e, String instance) {
        Response.ResponseBuilder r = Response.status(e.status())
                .type(MEDIA_TYPE)
                .entity(json(e.status(), e.type(), e.title(), e.getMessage(), instance, e.errors()));
        e.headers().forEach(r::header);
        return r.build();
    }

    public static Response response(int status, String type, String title, String detail, String instance) {
        return Response.status(status).type(MEDIA_TYPE)
                .entity(json(status, type, title, detail, instance, List.of())).build();
    }
}
