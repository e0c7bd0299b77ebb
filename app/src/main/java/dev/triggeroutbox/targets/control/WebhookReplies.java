package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.targets.entity.DeliveryResult;
import java.time.Instant;

/**
 * Turns a webhook's HTTP answer into a delivery result. Kept apart from the HTTP exchange so every
 * status can be tested without a server. Errors are short sentences with the status and at most a
 * snippet of the body: they end up in {@code last_error} and in dead letters, read by people.
 */
final class WebhookReplies {

    static final int SNIPPET_CHARS = 200;

    private WebhookReplies() {
    }

    /**
     * @param body       the (already bounded) response body, may be null
     * @param location   the {@code Location} header, may be null
     * @param retryAfter the {@code Retry-After} header, may be null
     */
    static DeliveryResult result(int status, String body, String location, String retryAfter, Instant now) {
        if (status >= 200 && status < 300) {
            return new DeliveryResult.Delivered(body == null || body.isEmpty() ? null : body, status);
        }
        if (status >= 300 && status < 400) {
            // following would let a public URL bounce the request to an address the policy refuses
            String where = location == null || location.isBlank() ? "without a Location" : "to " + snippet(location);
            return new DeliveryResult.Failed(
                    "webhook answered HTTP " + status + ": redirect " + where + " not followed",
                    null, status, body);
        }
        if (status == 410) {
            return new DeliveryResult.Rejected("webhook answered HTTP 410 Gone, so the trigger is disabled"
                    + bodySuffix(body), true, status, body);
        }
        if (status == 408 || status == 425 || status == 429 || (status >= 500 && status < 600)) {
            return new DeliveryResult.Failed("webhook answered HTTP " + status + bodySuffix(body),
                    RetryAfter.parse(retryAfter, now), status, body);
        }
        if (status >= 400 && status < 500) {
            return new DeliveryResult.Rejected("webhook refused the delivery with HTTP " + status
                    + " (not retried)" + bodySuffix(body), false, status, body);
        }
        return new DeliveryResult.Failed("webhook answered an unexpected HTTP status " + status + bodySuffix(body),
                null, status, body);
    }

    private static String bodySuffix(String body) {
        String s = snippet(body);
        return s.isEmpty() ? "" : ": " + s;
    }

    /** The start of a text on one line, at most {@link #SNIPPET_CHARS} characters; empty for null. */
    static String snippet(String text) {
        if (text == null) {
            return "";
        }
        String line = text.replaceAll("[\\p{Cntrl}\\s]+", " ").strip();
        return line.length() <= SNIPPET_CHARS ? line : line.substring(0, SNIPPET_CHARS) + "…";
    }
}
