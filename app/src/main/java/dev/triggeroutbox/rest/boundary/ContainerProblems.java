package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.rest.control.Problems;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The error page of the WAR (web.xml): statuses the container answers before JAX-RS runs (401
 * without credentials or with unreadable ones, 403 without an outbox role, 404 outside the API, 400 for
 * what the runtime could not read) as problem+json, without the container's HTML or exception text.
 */
@WebServlet("/problem")
public class ContainerProblems extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : 404;
        Object failure = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        if (status == 500 && isRoleCheckOfColonPath(failure)) {
            status = 403;
        }
        boolean unreadableCredentials = status == 500 && isUnreadableBasicCredentials(failure);
        if (unreadableCredentials) {
            status = 401;
            response.setHeader("WWW-Authenticate", "Basic realm=\"Trigger Outbox\", charset=\"UTF-8\"");
        }
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String instance = uri == null ? null : uri.toString();
        String body = switch (status) {
            case 400 -> Problems.json(400, "bad-request", "Bad request",
                    "the request could not be read: a malformed header, address or body", instance, List.of());
            case 401 -> Problems.json(401, "unauthorized", "Unauthorized", unreadableCredentials
                    ? "the Authorization header is not Basic followed by base64 of user:password"
                    : "sign in with HTTP Basic credentials of the server's application realm", instance, List.of());
            case 403 -> Problems.json(403, "forbidden", "Forbidden",
                    "your account has no outbox role (outbox-producer or outbox-admin)", instance, List.of());
            case 405 -> Problems.json(405, "method-not-allowed", "Method Not Allowed",
                    "this method is not allowed here", instance, List.of());
            case 413 -> Problems.json(413, "payload-too-large", "Payload too large", "the request body is too large",
                    instance, List.of());
            case 404 -> Problems.json(404, "not-found", "Not found", "no such resource", instance, List.of());
            case 406 ->
                Problems.json(406, "not-acceptable", "Not acceptable", "this resource answers application/json only",
                        instance, List.of());
            case 415 -> Problems.json(415, "unsupported-media-type", "Unsupported media type",
                    "this resource does not read a body of this media type", instance, List.of());
            default -> status >= 500
                    ? Problems.json(status, "internal", "Internal error", "the request failed on the server", instance,
                            List.of())
                    : Problems.json(status, "client-error", "Request refused", "the server refused the request",
                            instance, List.of());
        };
        response.setStatus(status);
        response.setContentType(Problems.MEDIA_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * WildFly's Elytron, reading an {@code Authorization: Basic} header whose credentials are not base64, throws
     * instead of challenging ({@code DecodeException} from its base64 decoder): the caller is not signed in.
     */
    private static boolean isUnreadableBasicCredentials(Object failure) {
        for (Throwable t = failure instanceof Throwable f ? f : null; t != null; t = t.getCause()) {
            if (t.getClass().getName().equals("org.wildfly.common.codec.DecodeException")) {
                return true;
            }
        }
        return false;
    }

    /**
     * WildFly's Elytron, refusing a signed-in caller without an outbox role, asks its permission mapper
     * about the request path as a Jakarta Authorization {@code WebResourcePermission}, whose pattern syntax
     * reserves ':'; on a path with a colon ({@code …/events:batch}, {@code /outbox:batch}) that throws
     * instead of refusing. The caller was being refused: it is a 403.
     */
    private static boolean isRoleCheckOfColonPath(Object failure) {
        if (!(failure instanceof IllegalArgumentException e) || e.getStackTrace().length == 0) {
            return false;
        }
        return "jakarta.security.jacc.URLPatternSpec".equals(e.getStackTrace()[0].getClassName());
    }
}
