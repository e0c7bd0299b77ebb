package dev.triggeroutbox.health.control;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A check whose outcome is reused for a short time. The health paths are open without signing in, so
 * without it every probe (or a flood of them) would take a connection and run a query; with it a flood
 * costs one query per time-to-live. Callers arriving while the check runs wait for its outcome instead
 * of starting their own.
 */
final class CachedCheck {

    private final Supplier<HealthChecks.Check> check;
    private final LongSupplier nanoTime;
    private final long ttlNanos;
    private HealthChecks.Check last;
    private long takenAt;

    CachedCheck(Supplier<HealthChecks.Check> check, LongSupplier nanoTime, long ttlNanos) {
        this.check = check;
        this.nanoTime = nanoTime;
        this.ttlNanos = ttlNanos;
    }

    synchronized HealthChecks.Check get() {
        long now = nanoTime.getAsLong();
        // a difference, not a comparison of readings: nanoTime may be negative or wrap
        if (last == null || now - takenAt >= ttlNanos) {
            last = check.get();
            takenAt = nanoTime.getAsLong();
        }
        return last;
    }
}
