package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WebhookCircuitsTest {

    private static final String ORIGIN = "https://hooks.example:443";

    private long now;
    /** The jitter draws its largest value, so the tests see the far end of each spread. */
    private final WebhookCircuits circuits = new WebhookCircuits(3, 4_000, 10_000, () -> now, bound -> bound - 1);

    private void fail(WebhookCircuits.Admission admission) {
        circuits.record(ORIGIN, admission, false, "connection refused");
    }

    private void pass(long millis) {
        now += TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void opensAfterTheThresholdOfUnreachableDeliveriesInARow() {
        for (int i = 0; i < 2; i++) {
            fail(circuits.admit(ORIGIN));
        }
        assertSame(WebhookCircuits.Admission.SEND, circuits.admit(ORIGIN), "two failures: still closed");
        fail(circuits.admit(ORIGIN));
        WebhookCircuits.Admission deferred = circuits.admit(ORIGIN);
        assertFalse(deferred.send());
        // the rest of the open second, plus a spread of up to one open period
        assertEquals(1_000 + 1_000, deferred.deferMillis());
        assertTrue(deferred.reason().contains(ORIGIN) && deferred.reason().contains("3 deliveries in a row")
                && deferred.reason().contains("connection refused"), deferred.reason());
        assertSame(WebhookCircuits.Admission.SEND, circuits.admit("https://other.example:443"),
                "other origins are not affected");
    }

    @Test
    void anAnswerOfAnyKindInBetweenStartsTheCountAgain() {
        fail(circuits.admit(ORIGIN));
        fail(circuits.admit(ORIGIN));
        circuits.record(ORIGIN, circuits.admit(ORIGIN), true, null); // a 503 is an answer: reachable
        fail(circuits.admit(ORIGIN));
        fail(circuits.admit(ORIGIN));
        assertTrue(circuits.admit(ORIGIN).send());
    }

    @Test
    void halfOpenLetsOneProbeThroughAndItsFailureDoublesTheWaitUpToTheMost() {
        for (int i = 0; i < 3; i++) {
            fail(circuits.admit(ORIGIN));
        }
        pass(1_000);
        WebhookCircuits.Admission probe = circuits.admit(ORIGIN);
        assertTrue(probe.send() && probe.probe());
        WebhookCircuits.Admission waiting = circuits.admit(ORIGIN);
        assertFalse(waiting.send(), "only one probe at a time");
        fail(probe);
        assertEquals(2_000 + 2_000, circuits.admit(ORIGIN).deferMillis(), "open twice as long");
        pass(2_000);
        fail(circuits.admit(ORIGIN));
        assertEquals(4_000 + 4_000, circuits.admit(ORIGIN).deferMillis());
        pass(4_000);
        fail(circuits.admit(ORIGIN));
        assertEquals(4_000 + 4_000, circuits.admit(ORIGIN).deferMillis(), "never longer than the most");
    }

    @Test
    void aProbeThatReachesTheOriginClosesTheCircuit() {
        for (int i = 0; i < 3; i++) {
            fail(circuits.admit(ORIGIN));
        }
        pass(1_000);
        circuits.record(ORIGIN, circuits.admit(ORIGIN), true, null);
        assertEquals(0, circuits.open());
        assertSame(WebhookCircuits.Admission.SEND, circuits.admit(ORIGIN));
    }

    @Test
    void aProbeThatNeverReportsIsReplacedAfterTheProbeTimeout() {
        for (int i = 0; i < 3; i++) {
            fail(circuits.admit(ORIGIN));
        }
        pass(1_000);
        assertTrue(circuits.admit(ORIGIN).probe());
        pass(9_999);
        assertFalse(circuits.admit(ORIGIN).send());
        pass(2);
        assertTrue(circuits.admit(ORIGIN).probe());
    }

    @Test
    void aThresholdOfZeroNeverOpens() {
        WebhookCircuits off = new WebhookCircuits(0, 4_000, 10_000, () -> now, bound -> 0);
        for (int i = 0; i < 100; i++) {
            off.record(ORIGIN, off.admit(ORIGIN), false, "refused");
        }
        assertSame(WebhookCircuits.Admission.SEND, off.admit(ORIGIN));
        assertEquals(0, off.open());
    }
}
