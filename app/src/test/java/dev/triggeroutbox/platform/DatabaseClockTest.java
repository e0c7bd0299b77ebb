package dev.triggeroutbox.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DatabaseClockTest {

    /** This node's clocks, moved by the test: the wall clock may be stepped, the monotonic one only runs. */
    private final AtomicLong wall = new AtomicLong(1_000_600_000L);
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final DatabaseClock clock = new DatabaseClock(wall::get, nanos::get);

    private void elapse(long millis) {
        wall.addAndGet(millis);
        nanos.addAndGet(millis * 1_000_000);
    }

    @Test
    void isTheNodesClockUntilMeasured() {
        assertFalse(clock.measured());
        assertEquals(1_000_600_000L, clock.clock().millis());
        assertEquals(0, clock.offsetMillis());
        assertEquals(0, clock.wallStepMillis());
    }

    @Test
    void followsTheDatabaseWhenTheNodesClockIsOff() {
        // the node's monotonic clock read 10 ms apart around a database reading of 1,000,000,005, while its
        // wall clock said 1,000,600,010: the node is ten minutes ahead
        long before = nanos.get();
        elapse(10);
        clock.observed(1_000_000_005L, before, nanos.get());
        assertTrue(clock.measured());
        assertEquals(-600_000L, clock.offsetMillis());
        elapse(2_000);
        assertEquals(1_000_002_010L, clock.clock().millis(), "the reading plus the monotonic time since");
    }

    @Test
    void aWallClockSetBackChangesNothingItSaysAndIsSeen() {
        clock.observed(1_000_000_000L, nanos.get(), nanos.get());
        elapse(1_000);
        // NTP sets the wall clock ten minutes back, as for a clock that ran fast
        wall.addAndGet(-600_000L);
        assertEquals(1_000_001_000L, clock.clock().millis(), "the database's time, not ten minutes behind");
        assertEquals(-600_000L, clock.wallStepMillis(), "the step is seen, so the offset is measured again");
        assertEquals(0, clock.offsetMillis(), "the node's clock now agrees with the database's");
        clock.observed(1_000_001_000L, nanos.get(), nanos.get());
        assertEquals(0, clock.wallStepMillis());
    }
}
