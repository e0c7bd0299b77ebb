package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.rest.control.Problems;
import jakarta.annotation.Priority;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.ext.Provider;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Refuses, before any resource is matched, requests whose headers or address the JAX-RS runtime would
 * otherwise trip over: an {@code Accept} or {@code Content-Type} that is not a media type (RESTEasy fails
 * a whole request on a q-value that is not a number), a JSON body declared in a charset other than UTF-8
 * (RFC 8259: JSON between systems is UTF-8, and the body is read as such), and a NUL character in the path
 * or a query parameter (PostgreSQL's text types cannot hold one). Each answer is a problem saying which.
 */
@Provider
@PreMatching
@Priority(100) // before the body limit and the cross-site check, which read these headers
public class MalformedRequests implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        String accept = request.getHeaderString("Accept");
        if (accept != null && !isMediaRangeList(accept)) {
            refuse(request, 400, "malformed-header", "Malformed header",
                    "the Accept header is not a list of media types with numeric q-values");
            return;
        }
        String contentType = request.getHeaderString("Content-Type");
        if (contentType != null) {
            MediaType type = mediaType(contentType);
            if (type == null) {
                refuse(request, 400, "malformed-header", "Malformed header",
                        "the Content-Type header is not a media type");
                return;
            }
            String charset = unquoted(type.getParameters().get(MediaType.CHARSET_PARAMETER));
            if (charset != null && !readable(type, charset)) {
                refuse(request, 415, "unsupported-charset", "Unsupported charset",
                        "request bodies are read as UTF-8; charset " + charset + " is not accepted");
                return;
            }
        }
        String nul;
        try {
            nul = nulIn(request);
        } catch (IllegalArgumentException e) {
            refuse(request, 400, "malformed-address", "Malformed address",
                    "the path or query is not percent-encoded UTF-8");
            return;
        }
        if (nul != null) {
            refuse(request, 400, "nul-character", "NUL character",
                    nul + " holds a NUL character, which nothing here can store");
        }
    }

    /**
     * Whether every element is a media range the runtime can weigh. As lenient as the runtimes are with what
     * clients really send (the JDK's {@code HttpURLConnection} sends {@code *; q=.2}): a bare {@code *} is a
     * range, and a q-value is anything that reads as a number.
     */
    private static boolean isMediaRangeList(String header) {
        for (String element : header.split(",")) {
            if (element.isBlank()) {
                continue;
            }
            int semicolon = element.indexOf(';');
            String range = (semicolon < 0 ? element : element.substring(0, semicolon)).strip();
            MediaType type = mediaType(
                    range.equals("*") ? "*/*" + element.substring(element.indexOf('*') + 1) : element);
            if (type == null) {
                return false;
            }
            String q = type.getParameters().get("q");
            if (q != null && !isNumber(q)) {
                return false;
            }
        }
        return true;
    }

    /** A parameter's value without the quotes HTTP allows around it ({@code charset="UTF-8"}). */
    private static String unquoted(String value) {
        return value != null && value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1)
                : value;
    }

    private static boolean isNumber(String q) {
        try {
            return Double.isFinite(Double.parseDouble(q));
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static MediaType mediaType(String text) {
        if (text.isBlank()) {
            return null;
        }
        try {
            MediaType type = MediaType.valueOf(text.strip());
            return type.getType().isEmpty() || type.getSubtype().isEmpty() ? null : type;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** JSON bodies must be UTF-8 (or its subset US-ASCII); any other body's charset must at least exist. */
    private static boolean readable(MediaType type, String charset) {
        try {
            if (!Charset.isSupported(charset)) {
                return false;
            }
        } catch (IllegalCharsetNameException e) {
            return false;
        }
        String subtype = type.getSubtype().toLowerCase(Locale.ROOT);
        if (subtype.equals("json") || subtype.endsWith("+json")) {
            Charset named = Charset.forName(charset);
            return named.equals(StandardCharsets.UTF_8) || named.equals(StandardCharsets.US_ASCII);
        }
        return true;
    }

    /** What in the request's address holds a NUL character once decoded, or null. */
    private static String nulIn(ContainerRequestContext request) {
        if (request.getUriInfo().getPath().indexOf('\0') >= 0) {
            return "the path";
        }
        for (Map.Entry<String, List<String>> parameter : request.getUriInfo().getQueryParameters().entrySet()) {
            if (parameter.getKey().indexOf('\0') >= 0
                    || parameter.getValue().stream().anyMatch(v -> v.indexOf('\0') >= 0)) {
                return "the query parameter " + parameter.getKey().replace('\0', '?');
            }
        }
        return null;
    }

    private static void refuse(ContainerRequestContext request, int status, String type, String title, String detail) {
        request.abortWith(
                Problems.response(status, type, title, detail, request.getUriInfo().getRequestUri().getRawPath()));
    }
}
