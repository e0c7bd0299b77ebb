package dev.triggeroutbox.dispatch.control;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The database's clock as seen from this node: the node's clock plus the offset measured by the last
 * heartbeat. What a node tells others about time (the signed {@code webhook-timestamp}, the date a
 * {@code Retry-After} names) then agrees with every other node and with the due times in the database,
 * however far this machine's own clock is off. Until the first heartbeat it is the node's clock.
 */
@ApplicationScoped
public class DatabaseClock {

    private volatile long offsetMillis;
    private volatile boolean measured;

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
            return Instant.now().plusMillis(offsetMillis);
        }
    };

    /**
     * One reading of the database clock, taken between two readings of this node's clock: the
     * database read it, at the latest, halfway between them.
     */
    public void observed(long databaseEpochMillis, long localBeforeMillis, long localAfterMillis) {
        offsetMillis = databaseEpochMillis - (localBeforeMillis + localAfterMillis) / 2;
        measured = true;
    }

    /** How far the database's clock is ahead of this node's, in milliseconds (0 until measured). */
    public long offsetMillis() {
        return offsetMillis;
    }

    public boolean measured() {
        return measured;
    }

    public Clock clock() {
        return clock;
    }
}
