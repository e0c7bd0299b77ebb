package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.api.OutboxRefusedException.Reason;
import dev.triggeroutbox.rest.control.DatabaseOutages;
import dev.triggeroutbox.rest.control.Problems;
import jakarta.json.JsonException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.nio.charset.CharacterCodingException;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Turns every failure into {@code application/problem+json}. The texts are ours, never the
 * exception's own message for errors we did not raise: those may name classes or carry SQL.
 */
public final class ProblemMappers {

    private ProblemMappers() {
    }

    private static String path(UriInfo uri) {
        return uri == null ? null : uri.getRequestUri().getRawPath();
    }

    /** Our own refusals: the message was written for the client. */
    @Provider
    public static class Refusals implements ExceptionMapper<OutboxRefusedException> {
        @Context
        UriInfo uri;

        @Override
        public Response toResponse(OutboxRefusedException e) {
            return Problems.response(e, path(uri));
        }
    }

    /** JAX-RS's own statuses (unknown path 404, 405, 406, 415, role checks 403, bad parameters 400...). */
    @Provider
    public static class JaxRsStatuses implements ExceptionMapper<WebApplicationException> {
        @Context
        UriInfo uri;

        @Override
        public Response toResponse(WebApplicationException e) {
            int status = e.getResponse() == null ? 500 : e.getResponse().getStatus();
            if (status == 400 && e.getCause() != null && isMalformedJson(e.getCause())) {
                return malformed(path(uri));
            }
            Response.ResponseBuilder r = Response.fromResponse(Problems.response(status, slug(status),
                    Response.Status.fromStatusCode(status) == null
                            ? "Error"
                            : Response.Status.fromStatusCode(status).getReasonPhrase(),
                    detail(status), path(uri)));
            if (e.getResponse() != null && e.getResponse().getHeaderString("Allow") != null) {
                r.header("Allow", e.getResponse().getHeaderString("Allow"));
            }
            return r.build();
        }

        private static String slug(int status) {
            return switch (status) {
                case 400 -> "bad-request";
                case 401 -> "unauthorized";
                case 403 -> "forbidden";
                case 404 -> "not-found";
                case 405 -> "method-not-allowed";
                case 406 -> "not-acceptable";
                case 413 -> "payload-too-large";
                case 415 -> "unsupported-media-type";
                default -> status >= 500 ? "internal" : "error";
            };
        }

        private static String detail(int status) {
            return switch (status) {
                case 400 -> "the request is malformed";
                case 401 -> "authentication is required";
                case 403 -> "your role does not allow this request";
                case 404 -> "no such resource";
                case 405 -> "this method is not allowed here";
                case 406 -> "this resource answers application/json";
                case 415 -> "send the body as application/json";
                default -> null;
            };
        }
    }

    /** A body that is not JSON at all. */
    @Provider
    public static class MalformedJson implements ExceptionMapper<JsonException> {
        @Context
        UriInfo uri;

        @Override
        public Response toResponse(JsonException e) {
            return isNotUtf8(e) ? notUtf8(path(uri)) : malformed(path(uri));
        }
    }

    /** Reader failures RESTEasy wraps (a body that is not JSON, a stream cut short). */
    @Provider
    public static class Unreadable implements ExceptionMapper<ProcessingException> {
        @Context
        UriInfo uri;

        @Override
        public Response toResponse(ProcessingException e) {
            OutboxRefusedException refused = refusalIn(e);
            if (refused != null) {
                return Problems.response(refused, path(uri));
            }
            if (isNotUtf8(e)) {
                return notUtf8(path(uri));
            }
            OutboxRefusedException bound = parserBound(e);
            if (bound != null) {
                return Problems.response(bound, path(uri));
            }
            return malformed(path(uri));
        }
    }

    /**
     * A database that cannot be reached answers 503 with a time to try again (logged in one line, its text never
     * answered). Anything else is our bug: log it with an incident id, tell the client only the id.
     */
    @Provider
    public static class Unexpected implements ExceptionMapper<Throwable> {
        private static final Logger LOG = Logger.getLogger(Unexpected.class.getName());

        @Context
        UriInfo uri;

        @Override
        public Response toResponse(Throwable e) {
            OutboxRefusedException refused = refusalIn(e);
            if (refused != null) {
                return Problems.response(refused, path(uri));
            }
            if (isNotUtf8(e)) {
                return notUtf8(path(uri));
            }
            if (isMalformedJson(e)) {
                return malformed(path(uri));
            }
            OutboxRefusedException bound = parserBound(e);
            if (bound != null) {
                return Problems.response(bound, path(uri));
            }
            if (DatabaseOutages.in(e)) {
                LOG.warning(() -> "the database cannot be reached, answered 503 on " + path(uri) + ": "
                        + DatabaseOutages.summary(e));
                return unavailable(path(uri));
            }
            String incident = UUID.randomUUID().toString();
            LOG.log(Level.SEVERE, "incident " + incident + " on " + path(uri), e);
            return Problems.response(500, "internal", "Internal error",
                    "the request failed on the server; quote incident " + incident + " to your operator", path(uri));
        }
    }

    static Response malformed(String path) {
        return Problems.response(400, "malformed-json", "Malformed JSON", "the request body is not valid JSON", path);
    }

    /** The database cannot be reached: worth trying again in a few seconds, which is how long a restart or failover takes. */
    static Response unavailable(String path) {
        return Response.fromResponse(Problems.response(503, "unavailable", "Service unavailable",
                "the outbox cannot reach its database; try again shortly", path)).header("Retry-After", "5").build();
    }

    static Response notUtf8(String path) {
        return Problems.response(400, "not-utf-8", "Not UTF-8", "the request body is not valid UTF-8", path);
    }

    /** A body whose bytes are not UTF-8 (Jsons.strictUtf8 refuses them, whoever wrapped the refusal). */
    static boolean isNotUtf8(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CharacterCodingException) {
                return true;
            }
        }
        return false;
    }

    static boolean isMalformedJson(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JsonException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The JSON parser's (Parsson's) own refusal among {@code e} and its causes, as the problem it is:
     * its bounds on a number's length and on nesting, and an exponent nothing can hold. Whichever reader
     * ran the parser (JsonValueReader for JsonValue bodies on both servers, the runtime's own for others), the
     * answer is the same.
     */
    static OutboxRefusedException parserBound(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RuntimeException && thrownByTheJsonParser(t)) {
                if (t instanceof UnsupportedOperationException) {
                    // its bound on a number's length (1,100 characters), which keeps parsing linear
                    return new OutboxRefusedException(Reason.INVALID, "number-too-long", "Number too long",
                            "a number in the request body has more than 1,100 characters, more than this server reads");
                }
                if (t instanceof NumberFormatException || t instanceof ArithmeticException) {
                    // an exponent past what a number can have (1e-2147483649): JSON allows it, nothing can hold it
                    return new OutboxRefusedException(Reason.INVALID, "number-out-of-range", "Number out of range",
                            "a number in the request body has an exponent no number can hold");
                }
                if (t.getClass() == RuntimeException.class) {
                    // its nesting bound (1,000 levels), which it signals with a bare RuntimeException
                    return new OutboxRefusedException(Reason.INVALID, "json-too-deep", "JSON nested too deeply",
                            "the request body is nested deeper than the 1,000 levels this server reads");
                }
            }
        }
        return null;
    }

    /** Whether Parsson threw {@code t} itself: the first frame past the JDK's (BigDecimal's refusal) is its own. */
    private static boolean thrownByTheJsonParser(Throwable t) {
        for (StackTraceElement frame : t.getStackTrace()) {
            if (!frame.getClassName().startsWith("java.")) {
                return frame.getClassName().startsWith("org.eclipse.parsson.");
            }
        }
        return false;
    }

    /** Our own refusal wrapped by the container or the JSON reader (a body over its limit, for one). */
    static OutboxRefusedException refusalIn(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutboxRefusedException api) {
                return api;
            }
        }
        return null;
    }
}
