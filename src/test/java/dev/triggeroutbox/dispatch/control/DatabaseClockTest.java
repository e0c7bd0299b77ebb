package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class DatabaseClockTest {

    @Test
    void isTheNodesClockUntilMeasured() {
        DatabaseClock clock = new DatabaseClock();
        assertFalse(clock.measured());
        long before = System.currentTimeMillis();
        long read = clock.clock().millis();
        long after = System.currentTimeMillis();
        assertTrue(read >= before && read <= after, read + " not within [" + before + ", " + after + "]");
    }

    @Test
    void followsTheDatabaseWhenTheNodesClockIsOff() {
        DatabaseClock clock = new DatabaseClock();
        // this node's clock read 1,000,600,000 and 1,000,600,010 around a database reading of 1,000,000,005:
        // the node is ten minutes ahead
        clock.observed(1_000_000_005L, 1_000_600_000L, 1_000_600_010L);
        assertTrue(clock.measured());
        assertEquals(-600_000L, clock.offsetMillis());
        long expected = Instant.now().minusSeconds(600).toEpochMilli();
        long read = clock.clock().instant().toEpochMilli();
        assertTrue(Math.abs(read - expected) < 1_000, read + " is not ten minutes behind this node's clock");
    }
}
