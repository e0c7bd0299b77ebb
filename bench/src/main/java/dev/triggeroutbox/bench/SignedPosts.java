package dev.triggeroutbox.bench;

import dev.triggeroutbox.targets.control.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Webhook POSTs as the WAR sends them (JSON body of about 200 bytes, Standard Webhooks headers signed
 * with the product's own signer, the outbox-* headers), made once so that every client of the
 * comparison, and wrk, sends the same bytes.
 */
final class SignedPosts {

    /** One request: its headers in order, and its body. */
    record Post(Map<String, String> headers, byte[] body) {
    }

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    private SignedPosts() {
    }

    /** The JSON payload the webhook drain's rows carry too: {@code {"seq": n, "pad": "xx…"}}, about 200 bytes. */
    static String payload(long seq) {
        return "{\"seq\": " + seq + ", \"pad\": \"" + "x".repeat(PAD) + "\"}";
    }

    /** Characters of padding that make {@link #payload} about 200 bytes. */
    static final int PAD = 180;

    static List<Post> make(int count) {
        WebhookSignature signer = WebhookSignature.of(SECRET);
        UUID app = UUID.randomUUID();
        UUID trigger = UUID.randomUUID();
        long timestamp = System.currentTimeMillis() / 1000;
        List<Post> posts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String id = UUID.randomUUID().toString();
            byte[] body = payload(i).getBytes(StandardCharsets.UTF_8);
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Content-Type", "application/json");
            h.put("webhook-id", id);
            h.put("webhook-timestamp", Long.toString(timestamp));
            h.put("webhook-signature", signer.sign(id, timestamp, body));
            h.put("outbox-attempt", "1");
            h.put("outbox-trigger-depth", "0");
            h.put("outbox-app-id", app.toString());
            h.put("outbox-source-kind", "kv");
            h.put("outbox-trigger-id", trigger.toString());
            h.put("outbox-root-execution-id", UUID.randomUUID().toString());
            posts.add(new Post(h, body));
        }
        return posts;
    }
}
