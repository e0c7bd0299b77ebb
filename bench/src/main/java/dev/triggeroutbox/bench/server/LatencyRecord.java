package dev.triggeroutbox.bench.server;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Commit and delivery-start instants of one latency run, indexed by the event's sequence number (its
 * payload is {@code {"probe": seq}}). Both are {@code System.nanoTime()} of this JVM, so no clocks are
 * compared across processes; 0 means "not yet".
 */
public final class LatencyRecord {

    private static final String KEY = "\"probe\":";

    private final long origin = System.nanoTime() - 1;
    private final AtomicLongArray committed;
    private final AtomicLongArray started;
    private final AtomicInteger startedCount = new AtomicInteger();
    private final AtomicInteger committedCount = new AtomicInteger();

    LatencyRecord(int events) {
        committed = new AtomicLongArray(events);
        started = new AtomicLongArray(events);
    }

    void committed(int seq) {
        committed.set(seq, System.nanoTime() - origin);
        committedCount.incrementAndGet();
    }

    /** The first delivery start of a row counts; a redelivery (at least once) does not. */
    void started(String payload) {
        long now = System.nanoTime() - origin;
        int seq = seqOf(payload);
        if (seq >= 0 && seq < started.length() && started.compareAndSet(seq, 0, now)) {
            startedCount.incrementAndGet();
        }
    }

    int startedCount() {
        return startedCount.get();
    }

    int committedCount() {
        return committedCount.get();
    }

    static int seqOf(String payload) {
        int i = payload == null ? -1 : payload.indexOf(KEY);
        if (i < 0) {
            return -1;
        }
        i += KEY.length();
        while (i < payload.length() && payload.charAt(i) == ' ') {
            i++;
        }
        int seq = 0;
        boolean digits = false;
        while (i < payload.length() && Character.isDigit(payload.charAt(i))) {
            seq = seq * 10 + (payload.charAt(i++) - '0');
            digits = true;
        }
        return digits ? seq : -1;
    }

    /** commit → delivery start over the first {@code events} rows, as JSON (milliseconds). */
    String summary(int events) {
        long[] latencies = new long[events];
        int n = 0;
        int negative = 0;
        for (int i = 0; i < events; i++) {
            long c = committed.get(i);
            long s = started.get(i);
            if (c != 0 && s != 0) {
                long l = s - c;
                if (l < 0) {
                    negative++; // the wake-up ran before this probe's own commit callback: start and commit coincide
                    l = 0;
                }
                latencies[n++] = l;
            }
        }
        long[] sorted = Arrays.copyOf(latencies, n);
        Arrays.sort(sorted);
        return String.format(Locale.ROOT,
                "{\"measured\":%d,\"negative\":%d,\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"max\":%.3f}",
                n, negative, ms(percentile(sorted, 50)), ms(percentile(sorted, 95)), ms(percentile(sorted, 99)),
                ms(n == 0 ? 0 : sorted[n - 1]));
    }

    /** Nearest rank. */
    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double ms(long nanos) {
        return nanos / 1_000_000.0;
    }
}
