package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.rest.control.Problems;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.ext.Provider;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses requests a foreign web page can make a signed-in browser send (cross-site request
 * forgery). A browser that cached BASIC credentials adds them to any request to this server, also
 * one a page elsewhere starts; such a page can send, without asking the server first, only a POST
 * with no body or a form's media type. So a changing request is refused when its {@code Origin}
 * is another site's, and a POST without a JSON body must carry the header {@code X-Requested-By}
 * (any value), which no form can set (the console sends it).
 */
@Provider
public class CrossSiteRequests implements ContainerRequestFilter {

    /** The header a script sets and a cross-site form cannot. */
    public static final String HEADER = "X-Requested-By";

    private static final Set<String> CHANGING = Set.of("POST", "PUT", "PATCH", "DELETE");

    /** The media types a page elsewhere may POST without the server's consent (a CORS "simple" request). */
    private static final Set<String> FORM_TYPES = Set.of("application/x-www-form-urlencoded", "multipart/form-data",
            "text/plain");

    /**
     * Origins, besides this server's own (the request's {@code Host}), whose pages may send changing
     * requests: {@code scheme://host[:port]}, comma-separated. Needed when a proxy in front passes
     * another {@code Host} than the one the browser used (nginx's default); empty: only the own.
     */
    @Inject
    @ConfigProperty(name = "outbox.allowed-origins")
    Optional<String> allowedOrigins;

    @Override
    public void filter(ContainerRequestContext request) {
        if (!CHANGING.contains(request.getMethod())) {
            return;
        }
        String origin = request.getHeaderString("Origin");
        if (origin != null && !sameSite(origin, request.getHeaderString("Host")) && !allowed(origin)) {
            refuse(request, "a page of another origin (" + origin + ") may not change anything here; "
                    + "list it in outbox.allowed-origins if it is yours");
            return;
        }
        if (request.getMethod().equals("POST") && formLike(request.getMediaType())
                && blank(request.getHeaderString(HEADER))) {
            refuse(request, "a POST without a JSON body must carry the header " + HEADER
                    + " (any value), so no page of another site can send it");
        }
    }

    private static boolean formLike(MediaType type) {
        return type == null || FORM_TYPES.contains((type.getType() + "/" + type.getSubtype()).toLowerCase(Locale.ROOT));
    }

    /** The browser's Origin names the host (and port) the request was sent to; the scheme may differ behind a TLS proxy. */
    private static boolean sameSite(String origin, String host) {
        if (host == null) {
            return false;
        }
        int scheme = origin.indexOf("://");
        return scheme > 0
                && withoutDefaultPort(origin.substring(scheme + 3)).equalsIgnoreCase(withoutDefaultPort(host));
    }

    private static String withoutDefaultPort(String authority) {
        return authority.replaceFirst(":(80|443)$", "");
    }

    private boolean allowed(String origin) {
        List<String> listed = allowedOrigins.map(s -> Arrays.stream(s.split(",")).map(String::strip).toList())
                .orElse(List.of());
        return listed.stream().anyMatch(o -> o.equalsIgnoreCase(origin));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static void refuse(ContainerRequestContext request, String detail) {
        request.abortWith(Problems.response(403, "cross-site-request", "Cross-site request refused", detail,
                request.getUriInfo().getRequestUri().getRawPath()));
    }
}
