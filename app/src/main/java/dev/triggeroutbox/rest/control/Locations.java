package dev.triggeroutbox.rest.control;

import jakarta.ws.rs.core.UriInfo;

/**
 * The {@code Location} of what a request created, as an absolute path ({@code /outbox/api/v1/outbox/…}).
 * A full URL would be built from the request's {@code Host} header, which the client chooses: it
 * would send the client (and, through stored idempotency answers, later clients) wherever that
 * header said. RFC 9110 allows a relative reference; clients resolve it against the URL they called.
 */
public final class Locations {

    private Locations() {
    }

    /** {@code segments} are appended to the API's base path, each as it is (ids and fixed names). */
    public static String of(UriInfo uri, String... segments) {
        return uri.getBaseUri().getRawPath() + String.join("/", segments);
    }
}
