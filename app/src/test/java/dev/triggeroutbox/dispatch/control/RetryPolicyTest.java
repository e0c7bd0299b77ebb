package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private final RetryPolicy random = new RetryPolicy(1_000, 60_000, n -> ThreadLocalRandom.current().nextLong(n));

    @Test
    void ceilingDoublesFromTheBaseUpToTheCap() {
        assertEquals(1_000, random.ceilingMillis(1));
        assertEquals(2_000, random.ceilingMillis(2));
        assertEquals(4_000, random.ceilingMillis(3));
        assertEquals(32_000, random.ceilingMillis(6));
        assertEquals(60_000, random.ceilingMillis(7));
        assertEquals(60_000, random.ceilingMillis(500), "no overflow however many attempts");
    }

    @Test
    void fullJitterStaysWithinZeroAndTheCeiling() {
        for (int attempt = 1; attempt <= 12; attempt++) {
            long ceiling = random.ceilingMillis(attempt);
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int i = 0; i < 2_000; i++) {
                long d = random.delayMillis(attempt, null);
                assertTrue(d >= 0 && d <= ceiling, "attempt " + attempt + ": " + d + " outside [0, " + ceiling + "]");
                min = Math.min(min, d);
                max = Math.max(max, d);
            }
            // full jitter spreads over the whole range, not a band near the ceiling
            assertTrue(min < ceiling / 10, "attempt " + attempt + " never went low: " + min);
            assertTrue(max > ceiling * 9 / 10, "attempt " + attempt + " never went high: " + max);
        }
    }

    @Test
    void extremesOfTheRandomSourceHitTheBounds() {
        RetryPolicy lowest = new RetryPolicy(100, 1_000, n -> 0);
        RetryPolicy highest = new RetryPolicy(100, 1_000, n -> n - 1);
        assertEquals(0, lowest.delayMillis(3, null));
        assertEquals(400, highest.delayMillis(3, null));
        assertEquals(1_000, highest.delayMillis(30, null));
    }

    @Test
    void retryAfterIsALowerBoundBeyondTheBackoffCapButNotBeyondADay() {
        RetryPolicy lowest = new RetryPolicy(100, 1_000, n -> 0);
        assertEquals(700, lowest.delayMillis(1, Duration.ofMillis(700)));
        assertEquals(5 * 3600_000, lowest.delayMillis(1, Duration.ofHours(5)));
        assertEquals(24 * 3600_000, lowest.delayMillis(1, Duration.ofDays(30)));
        assertEquals(0, lowest.delayMillis(1, Duration.ofSeconds(-3)));
    }

    @Test
    void refusesNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0, 10, n -> 0));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(10, 5, n -> 0));
    }
}
