package dev.triggeroutbox.health.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Liveness follows the local poll timer (its age on the monotonic clock): a node whose timer stopped for several intervals is DOWN. */
class LivenessTest {

    private static final long POLL = 1_000;
    @Test
    void upWhileTheTimerTicks() {
        HealthChecks.Check c = HealthChecks.dispatcher(true, 900, POLL);
        assertTrue(c.up());
        assertEquals(900, c.data().getJsonNumber("lastTickAgeMillis").longValue());
    }

    @Test
    void downAfterSeveralMissedTicks() {
        long limit = HealthChecks.STALLED_AFTER_TICKS * POLL + 1_000;
        assertTrue(HealthChecks.dispatcher(true, limit, POLL).up(), "at the limit still up");
        HealthChecks.Check stalled = HealthChecks.dispatcher(true, limit + 1, POLL);
        assertFalse(stalled.up());
        assertEquals("DOWN", stalled.json().getString("status"));
    }

    @Test
    void downBeforeTheFirstTick() {
        HealthChecks.Check c = HealthChecks.dispatcher(true, -1, POLL);
        assertFalse(c.up());
        assertEquals(-1, c.data().getJsonNumber("lastTickAgeMillis").longValue());
    }

    @Test
    void aNodeWithoutDispatcherIsLive() {
        assertTrue(HealthChecks.dispatcher(false, -1, POLL).up());
    }

    @Test
    void theLimitScalesWithThePollInterval() {
        assertTrue(HealthChecks.dispatcher(true, 20_000, 5_000).up());
        assertFalse(HealthChecks.dispatcher(true, 20_000, 3_000).up());
    }
}
