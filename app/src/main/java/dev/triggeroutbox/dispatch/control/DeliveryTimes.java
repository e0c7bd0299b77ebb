package dev.triggeroutbox.dispatch.control;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long deliveries took (start of the delivery to its result), as a cumulative histogram with
 * fixed buckets in the Prometheus way: lock-free, constant memory, cheap on the delivery path.
 */
public final class DeliveryTimes {

    /** Upper bounds of the buckets, in seconds; +Inf is implied. */
    public static final double[] BOUNDS = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

    private final AtomicLongArray buckets = new AtomicLongArray(BOUNDS.length + 1);
    private final LongAdder count = new LongAdder();
    private final LongAdder sumNanos = new LongAdder();

    void observe(long nanos) {
        double seconds = nanos / 1e9;
        int i = 0;
        while (i < BOUNDS.length && seconds > BOUNDS[i]) {
            i++;
        }
        buckets.incrementAndGet(i);
        count.increment();
        sumNanos.add(nanos);
    }

    /** Cumulative counts per bound (the last one is +Inf, equal to {@link #count()}). */
    public long[] cumulative() {
        long[] out = new long[BOUNDS.length + 1];
        long running = 0;
        for (int i = 0; i < out.length; i++) {
            running += buckets.get(i);
            out[i] = running;
        }
        return out;
    }

    public long count() {
        return count.sum();
    }

    public double sumSeconds() {
        return sumNanos.sum() / 1e9;
    }
}
