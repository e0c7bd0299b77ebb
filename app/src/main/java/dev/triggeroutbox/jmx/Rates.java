package dev.triggeroutbox.jmx;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * Per-second rates of growing totals, from samples taken when they are read (at most one a second, the
 * last {@link #WINDOW_NANOS} kept): a console that polls sees the rate over about the last ten seconds,
 * and nothing runs while nobody looks.
 */
final class Rates {

    static final long WINDOW_NANOS = 10_000_000_000L;
    private static final long SAMPLE_EVERY_NANOS = 1_000_000_000L;

    private record Sample(long nanos, long[] totals) {
    }

    private final LongSupplier nanoTime;
    private final LongSupplier[] totals;
    private final Deque<Sample> samples = new ArrayDeque<>();

    Rates(LongSupplier nanoTime, LongSupplier... totals) {
        this.nanoTime = nanoTime;
        this.totals = totals;
    }

    /** The rate of total {@code i} per second between the oldest kept sample and now (0 until there are two). */
    synchronized double perSecond(int i) {
        long now = nanoTime.getAsLong();
        Sample last = samples.peekLast();
        if (last == null || now - last.nanos() >= SAMPLE_EVERY_NANOS) {
            long[] read = new long[totals.length];
            for (int t = 0; t < totals.length; t++) {
                read[t] = totals[t].getAsLong();
            }
            samples.addLast(new Sample(now, read));
            while (samples.size() > 2 && now - samples.peekFirst().nanos() > WINDOW_NANOS) {
                samples.removeFirst();
            }
        }
        Sample first = samples.peekFirst();
        Sample newest = samples.peekLast();
        long elapsed = newest.nanos() - first.nanos();
        return elapsed <= 0 ? 0 : (newest.totals()[i] - first.totals()[i]) * 1e9 / elapsed;
    }
}
