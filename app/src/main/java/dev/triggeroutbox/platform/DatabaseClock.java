package dev.triggeroutbox.platform;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * The database's clock as seen from this node: the database's time at the last heartbeat's reading plus
 * the monotonic time elapsed since ({@link System#nanoTime()}), never the node's wall clock. What a node
 * tells others about time (the signed {@code webhook-timestamp}, the date a {@code Retry-After} names) then
 * agrees with every other node and with the due times in the database, however far this machine's own
 * clock is off and however it is stepped (NTP setting back a clock that ran fast leaves it as it was).
 * Each heartbeat reads the database's clock again, so the monotonic clock's drift never adds up. Until the
 * first reading it is the node's clock.
 */
@ApplicationScoped
public class DatabaseClock {

    /** One reading: the database's time, and this node's monotonic and wall clocks at that moment. */
    private record Reading(long databaseMillis, long nanos, long wallMillis) {
    }

    private final LongSupplier wallMillis;
    private final LongSupplier nanoTime;
    private volatile Reading last;

    public DatabaseClock() {
        this(System::currentTimeMillis, System::nanoTime);
    }

    DatabaseClock(LongSupplier wallMillis, LongSupplier nanoTime) {
        this.wallMillis = wallMillis;
        this.nanoTime = nanoTime;
    }

    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("the database clock is UTC");
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public long millis() {
            Reading r = last;
            return r == null
                    ? wallMillis.getAsLong()
                    : r.databaseMillis() + (nanoTime.getAsLong() - r.nanos()) / 1_000_000;
        }
    };

    /**
     * One reading of the database clock, taken between two readings of this node's monotonic clock: the
     * database read it, at the latest, halfway between them.
     */
    public void observed(long databaseEpochMillis, long localBeforeNanos, long localAfterNanos) {
        long nanos = localBeforeNanos + (localAfterNanos - localBeforeNanos) / 2;
        long wall = wallMillis.getAsLong() - (nanoTime.getAsLong() - nanos) / 1_000_000;
        last = new Reading(databaseEpochMillis, nanos, wall);
    }

    /** How far the database's clock is ahead of this node's wall clock now, in milliseconds (0 until measured). */
    public long offsetMillis() {
        return last == null ? 0 : clock.millis() - wallMillis.getAsLong();
    }

    /**
     * How far this node's wall clock has moved since the last reading beyond the monotonic time that passed
     * (negative: it was set back); 0 until measured. A step of more than a moment means the offset changed and
     * should be measured again.
     */
    public long wallStepMillis() {
        Reading r = last;
        if (r == null) {
            return 0;
        }
        return (wallMillis.getAsLong() - r.wallMillis()) - (nanoTime.getAsLong() - r.nanos()) / 1_000_000;
    }

    public boolean measured() {
        return last != null;
    }

    public Clock clock() {
        return clock;
    }
}
