package dev.triggeroutbox.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The verifier against the Standard Webhooks specification's own example delivery. */
class WebhookVerifierTest {

    // the specification's example: secret, id, timestamp, body and the signature it gives
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    private static final String TIMESTAMP = "1614265330";
    private static final String BODY = "{\"test\": 2432232314}";
    private static final String SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    private static final Clock THEN = Clock.fixed(Instant.ofEpochSecond(1614265330), ZoneOffset.UTC);

    @Test
    void acceptsTheSpecificationsExample() {
        assertTrue(WebhookVerifier.of(THEN, SECRET).verify(ID, TIMESTAMP, SIGNATURE, BODY));
    }

    @Test
    void refusesAnyChangeOfIdTimestampOrBody() {
        WebhookVerifier verifier = WebhookVerifier.of(THEN, SECRET);
        assertFalse(verifier.verify("msg_other", TIMESTAMP, SIGNATURE, BODY));
        assertFalse(verifier.verify(ID, "1614265331", SIGNATURE, BODY));
        assertFalse(verifier.verify(ID, TIMESTAMP, SIGNATURE, "{\"test\": 2432232315}"));
        assertFalse(verifier.verify(ID, TIMESTAMP, "v1,bm90IGEgc2lnbmF0dXJl", BODY));
        assertFalse(verifier.verify(ID, TIMESTAMP, "v2," + SIGNATURE.substring(3), BODY), "only v1 entries count");
        assertFalse(verifier.verify(ID, TIMESTAMP, "v1,***", BODY));
        assertFalse(verifier.verify(ID, "not-a-number", SIGNATURE, BODY));
        assertFalse(verifier.verify(null, TIMESTAMP, SIGNATURE, BODY));
    }

    @Test
    void refusesATimestampMoreThanFiveMinutesAwayEitherWay() {
        assertFalse(WebhookVerifier.of(Clock.offset(THEN, java.time.Duration.ofSeconds(301)), SECRET).verify(ID,
                TIMESTAMP, SIGNATURE, BODY));
        assertFalse(WebhookVerifier.of(Clock.offset(THEN, java.time.Duration.ofSeconds(-301)), SECRET).verify(ID,
                TIMESTAMP, SIGNATURE, BODY));
        assertTrue(WebhookVerifier.of(Clock.offset(THEN, java.time.Duration.ofSeconds(300)), SECRET).verify(ID,
                TIMESTAMP, SIGNATURE, BODY));
    }

    @Test
    void duringARotationEitherSecretAndAnyEntryOfTheHeaderIsEnough() {
        String other = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[24]);
        assertTrue(WebhookVerifier.of(THEN, other, SECRET).verify(ID, TIMESTAMP, "v1,AAAA " + SIGNATURE, BODY));
        assertFalse(WebhookVerifier.of(THEN, other).verify(ID, TIMESTAMP, SIGNATURE, BODY));
    }

    @Test
    void aSecretMustBeOne() {
        assertThrows(IllegalArgumentException.class, () -> WebhookVerifier.of("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
        assertThrows(IllegalArgumentException.class, WebhookVerifier::of);
    }
}
