package dev.triggeroutbox.targets.control;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a secret is {@code whsec_} + base64 of
 * the key, and a signature is {@code v1,} + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")). Keeping
 * to the published format means receivers verify us with an existing library instead of our code.
 */
public final class WebhookSignature {

    static final String SECRET_PREFIX = "whsec_";

    // 24 bytes (192 bits) is what the Standard Webhooks libraries generate; the spec allows 24..64
    private static final int KEY_BYTES = 24;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;
    private final Mac keyed; // initialised with the key and never used itself: each signature starts from a clone

    private WebhookSignature(byte[] key) {
        this.key = key;
        this.keyed = newMac(key);
    }

    private static Mac newMac(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            // every Java platform must provide HmacSHA256
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** A Mac of its own for one signature: a clone of the keyed one (no provider lookup), or a new one. */
    private Mac mac() {
        try {
            return (Mac) keyed.clone();
        } catch (CloneNotSupportedException e) {
            return newMac(key);
        }
    }

    /** A fresh random secret for a new webhook trigger, shown to its owner once. */
    public static String newSecret() {
        byte[] key = new byte[KEY_BYTES];
        RANDOM.nextBytes(key);
        return SECRET_PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /** The signer for a stored secret; throws {@link IllegalArgumentException} when it is not {@code whsec_<base64>}. */
    public static WebhookSignature of(String secret) {
        if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
            throw new IllegalArgumentException("a webhook secret starts with " + SECRET_PREFIX);
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a webhook secret is " + SECRET_PREFIX + " followed by base64");
        }
        if (key.length == 0) {
            throw new IllegalArgumentException("a webhook secret must not be empty");
        }
        return new WebhookSignature(key);
    }

    /** The {@code webhook-signature} header value for one attempt of one message. */
    public String sign(String messageId, long timestampSeconds, byte[] body) {
        Mac mac = mac(); // a Mac is stateful: one per signature
        mac.update((messageId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
        return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    }

    @Override
    public String toString() {
        return "WebhookSignature[key hidden]";
    }
}
