package dev.triggeroutbox.platform;

import java.util.function.LongSupplier;

/**
 * A value that is measured at most once per time-to-live, however many callers ask: the open health
 * probes (a flood of them costs one query per time-to-live) and the console's counts (any number of
 * consoles refreshing cost one pass over the tables). Callers arriving while the value is measured wait
 * for it instead of measuring their own. A failed measurement is not kept: the next caller tries again.
 *
 * @param <T> what is measured
 * @param <X> what measuring may throw
 */
public final class Reused<T, X extends Exception> {

    /** Measures the value. */
    @FunctionalInterface
    public interface Source<T, X extends Exception> {
        T measure() throws X;
    }

    private final Source<T, X> source;
    private final LongSupplier nanoTime;
    private final long ttlNanos;
    private T last;
    private long takenAt;

    public Reused(Source<T, X> source, LongSupplier nanoTime, long ttlNanos) {
        this.source = source;
        this.nanoTime = nanoTime;
        this.ttlNanos = ttlNanos;
    }

    public synchronized T get() throws X {
        long now = nanoTime.getAsLong();
        // a difference, not a comparison of readings: nanoTime may be negative or wrap
        if (last == null || now - takenAt >= ttlNanos) {
            last = source.measure();
            takenAt = nanoTime.getAsLong();
        }
        return last;
    }
}
