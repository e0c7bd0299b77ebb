package dev.triggeroutbox.testkit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies a webhook the way the Standard Webhooks specification tells receivers to, written here
 * from the spec and independent of the code under test: HMAC-SHA256 with the secret's base64 key
 * (after "whsec_") over "id.timestamp.body", compared with each "v1,<base64>" of the signature
 * header, and a timestamp no further than five minutes from now.
 */
public final class StandardWebhooksVerifier {

    private StandardWebhooksVerifier() {
    }

    public static boolean verify(String secret, String id, String timestamp, String signatureHeader, String body) {
        if (secret == null || !secret.startsWith("whsec_") || id == null || timestamp == null
                || signatureHeader == null) {
            return false;
        }
        long ts = Long.parseLong(timestamp);
        if (Math.abs(Instant.now().getEpochSecond() - ts) > 300) {
            return false;
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
            byte[] expected = mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
            for (String candidate : signatureHeader.split(" ")) {
                String[] parts = candidate.split(",", 2);
                if (parts.length == 2 && parts[0].equals("v1")
                        && MessageDigest.isEqual(expected, Base64.getDecoder().decode(parts[1]))) {
                    return true;
                }
            }
            return false;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
