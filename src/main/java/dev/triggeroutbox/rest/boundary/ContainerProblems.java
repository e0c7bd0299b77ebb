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
 * without credentials, 403 without an outbox role, 404 outside the API) as problem+json, without
 * the container's HTML or exception text.
 */
@WebServlet("/problem")
public class ContainerProblems extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : 404;
        if (status == 500 && isRoleCheckOfColonPath(request.getAttribute(RequestDispatcher.ERROR_EXCEPTION))) {
            status = 403;
        }
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String instance = uri == null ? null : uri.toString();
        String body = switch (status) {
            case 401 -> Problems.json(401, "unauthorized", "Unauthorized",
                    "sign in with HTTP Basic credentials of the server's application realm", instance, List.of());
            case 403 -> Problems.json(403, "forbidden", "Forbidden",
                    "your account has no outbox role (outbox-producer or outbox-admin)", instance, List.of());
            case 405 -> Problems.json(405, "method-not-allowed", "Method Not Allowed", "this method is not allowed here", instance, List.of());
            case 413 -> Problems.json(413, "payload-too-large", "Payload too large", "the request body is too large", instance, List.of());
            case 500 -> Problems.json(500, "internal", "Internal error", "the request failed on the server", instance, List.of());
            default -> Problems.json(404, "not-found", "Not found", "no such resource", instance, List.of());
        };
        response.setStatus(status);
        response.setContentType(Problems.MEDIA_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
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
