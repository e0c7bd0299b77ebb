package dev.triggeroutbox.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a delivery's Standard Webhooks signature, for a receiver written in Java: HMAC-SHA256 with the key of
 * the trigger's secret ({@code whsec_} + base64) over {@code webhook-id.webhook-timestamp.body}, compared in
 * constant time with each {@code v1,<base64>} of the {@code webhook-signature} header, and a timestamp within
 * the tolerance (5 minutes) of the receiver's clock, so a captured delivery cannot be replayed later.
 *
 * <p>During a secret's rotation give both secrets: the outbox signs with both until the overlap ends, and
 * either matching is enough. Deduplicate on {@code webhook-id} (the row id, the same on every retry).
 */
public final class WebhookVerifier {

    /** How far a delivery's timestamp may be from the receiver's clock, either way. */
    public static final Duration TOLERANCE = Duration.ofMinutes(5);

    private final List<byte[]> keys;
    private final Clock clock;

    private WebhookVerifier(List<byte[]> keys, Clock clock) {
        this.keys = keys;
        this.clock = clock;
    }

    /** A verifier for the given secrets ({@code whsec_…}, as the trigger's creation or rotation answered them). */
    public static WebhookVerifier of(String... secrets) {
        return of(Clock.systemUTC(), secrets);
    }

    /** The same, on the given clock. */
    public static WebhookVerifier of(Clock clock, String... secrets) {
        if (secrets.length == 0) {
            throw new IllegalArgumentException("at least one secret");
        }
        List<byte[]> keys = new ArrayList<>();
        for (String secret : secrets) {
            if (secret == null || !secret.startsWith("whsec_")) {
                throw new IllegalArgumentException("a webhook secret starts with whsec_");
            }
            keys.add(Base64.getDecoder().decode(secret.substring("whsec_".length())));
        }
        return new WebhookVerifier(List.copyOf(keys), clock);
    }

    /** Whether the delivery is signed by one of the secrets and its timestamp is within the tolerance. */
    public boolean verify(String webhookId, String webhookTimestamp, String webhookSignature, byte[] body) {
        if (webhookId == null || webhookTimestamp == null || webhookSignature == null || body == null) {
            return false;
        }
        long timestamp;
        try {
            timestamp = Long.parseLong(webhookTimestamp.strip());
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(clock.instant().getEpochSecond() - timestamp) > TOLERANCE.toSeconds()) {
            return false;
        }
        byte[] signed = (webhookId + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
        for (byte[] key : keys) {
            byte[] expected = sign(key, signed, body);
            for (String entry : webhookSignature.strip().split(" +")) {
                if (entry.startsWith("v1,") && MessageDigest.isEqual(expected, decode(entry.substring(3)))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The same for a body given as text (it is signed as its UTF-8 bytes). */
    public boolean verify(String webhookId, String webhookTimestamp, String webhookSignature, String body) {
        return body != null
                && verify(webhookId, webhookTimestamp, webhookSignature, body.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sign(byte[] key, byte[] prefix, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(prefix);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static byte[] decode(String base64) {
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }
}
