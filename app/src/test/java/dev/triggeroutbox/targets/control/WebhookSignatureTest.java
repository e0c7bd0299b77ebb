package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookSignatureTest {

    @Test
    void reproducesThePublishedStandardWebhooksTestVector() {
        WebhookSignature signature = WebhookSignature.of("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        String header = signature.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8));
        assertEquals("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", header);
    }

    @Test
    void matchesAnIndependentHmacOverIdTimestampAndBody() throws Exception {
        String secret = WebhookSignature.newSecret();
        String id = "3f1c2a8e-0b7d-4e55-9a61-2c4d5e6f7a8b";
        long timestamp = 1_700_000_123L;
        String body = "{\"name\":\"Zoë\",\"n\":[1,2,3]}";

        Mac mac = Mac.getInstance("HmacSHA256");
        byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        byte[] expected = mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8));

        String header = WebhookSignature.of(secret).sign(id, timestamp, body.getBytes(StandardCharsets.UTF_8));
        assertEquals("v1," + Base64.getEncoder().encodeToString(expected), header);
    }

    @Test
    void eachAttemptsTimestampChangesTheSignature() {
        WebhookSignature signature = WebhookSignature.of(WebhookSignature.newSecret());
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        assertNotEquals(signature.sign("id", 1, body), signature.sign("id", 2, body));
        assertNotEquals(signature.sign("id", 1, body), signature.sign("other", 1, body));
    }

    @Test
    void newSecretsAreWhsecAnd24RandomBytes() {
        String a = WebhookSignature.newSecret();
        String b = WebhookSignature.newSecret();
        assertTrue(a.startsWith("whsec_"), a);
        assertEquals(24, Base64.getDecoder().decode(a.substring(6)).length);
        assertNotEquals(a, b);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_not base64!",
            "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})
    void refusesSecretsNotInTheWhsecFormat(String secret) {
        assertThrows(IllegalArgumentException.class, () -> WebhookSignature.of(secret));
    }

    @Test
    void neverPrintsTheKey() {
        String secret = WebhookSignature.newSecret();
        String text = WebhookSignature.of(secret).toString();
        assertTrue(!text.contains(secret.substring(6)), text);
    }
}
