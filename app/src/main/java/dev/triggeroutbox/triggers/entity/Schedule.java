package dev.triggeroutbox.triggers.entity;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * When a cron trigger fires: a cron expression in a time zone, and what happens to fires that were
 * missed while no node was running ({@link Misfire}).
 */
public record Schedule(String cron, String timezone, Misfire misfire) {

    public static final String DEFAULT_TIMEZONE = "UTC";

    /** What a fire more than {@code outbox.cron.misfire-grace-ms} late does. */
    public enum Misfire {
        /** All missed fires of a trigger together enqueue one row, which says how many were missed. */
        FIRE_ONCE,
        /** Missed fires enqueue nothing; the schedule resumes with the next fire. */
        SKIP;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Misfire> fromWire(String wire) {
            return Arrays.stream(values()).filter(m -> m.wire().equals(wire)).findFirst();
        }
    }

    /**
     * Checks the expression and zone.
     *
     * @throws IllegalArgumentException with a message fit for the caller
     */
    public static Schedule of(String cron, String timezone, Misfire misfire) {
        String zone = timezone == null ? DEFAULT_TIMEZONE : timezone;
        CronSchedule.parse(cron, zone);
        return new Schedule(cron.trim(), zone, misfire == null ? Misfire.FIRE_ONCE : misfire);
    }

    public CronSchedule compiled() {
        return CronSchedule.parse(cron, timezone);
    }
}
