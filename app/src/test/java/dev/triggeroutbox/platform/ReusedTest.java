package dev.triggeroutbox.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.health.control.HealthChecks;
import jakarta.json.JsonValue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The health probes' database check is run once per time-to-live however many probes ask; the clock is the test's. */
class ReusedTest {

    private static final long TTL = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(Long.MAX_VALUE - TTL / 2); // wraps during the test
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicBoolean databaseUp = new AtomicBoolean(true);
    private final Reused<HealthChecks.Check, RuntimeException> cached = new Reused<>(() -> {
        runs.incrementAndGet();
        return new HealthChecks.Check("database", databaseUp.get(), JsonValue.EMPTY_JSON_OBJECT);
    }, clock::get, TTL);

    @Test
    void aFloodOfProbesCostsOneCheckPerTimeToLive() {
        HealthChecks.Check first = cached.get();
        for (int i = 0; i < 1_000; i++) {
            clock.addAndGet(TTL / 2_000); // 1,000 probes within half the time-to-live
            assertSame(first, cached.get());
        }
        assertEquals(1, runs.get());
        clock.addAndGet(TTL / 2); // the time-to-live has passed (and nanoTime wrapped on the way)
        cached.get();
        assertEquals(2, runs.get());
    }

    @Test
    void anOutageIsSeenOnceTheTimeToLiveHasPassed() {
        assertTrue(cached.get().up());
        databaseUp.set(false);
        clock.addAndGet(TTL - 1);
        assertTrue(cached.get().up(), "still the answer measured less than a time-to-live ago");
        clock.addAndGet(1);
        assertFalse(cached.get().up());
        assertEquals(2, runs.get());
    }
}
