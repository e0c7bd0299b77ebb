package dev.triggeroutbox.targets.control;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

/**
 * A circuit breaker per webhook origin (host and port), on this node: after {@code threshold}
 * deliveries in a row could not reach the origin (connection refused, connect or answer timeout),
 * its circuit opens and rows for it are not sent at all until it half-opens: then one delivery
 * probes, and the others wait for it. A probe that reaches the origin (any HTTP answer, 5xx too)
 * closes the circuit; one that does not opens it again for twice as long, up to {@code maxOpenMillis}.
 * <p>
 * A row refused by an open circuit is a failed attempt like any other (counted, retried with
 * backoff, dead-lettered after its last), only cheaper: no connection, no thread, no timeout, and
 * its next attempt is no earlier than the half-open time (spread over one open period, so the rows
 * come back over time, not all at once). So an app whose receiver is down costs the other apps
 * little while its backlog grows.
 */
final class WebhookCircuits {

    /** What to do with one delivery: send it (as the probe, when {@code probe}), or not before {@code deferMillis}. */
    record Admission(boolean probe, long deferMillis, String reason) {
        static final Admission SEND = new Admission(false, 0, null);
        static final Admission PROBE = new Admission(true, 0, null);

        boolean send() {
            return deferMillis == 0;
        }
    }

    private static final class Circuit {
        int failures;
        long openMillis; // 0: closed
        long openUntilNanos;
        boolean probing;
        long probeDeadlineNanos;
        String lastError;
    }

    static final long FIRST_OPEN_MILLIS = 1_000;

    private final int threshold;
    private final long maxOpenMillis;
    private final long probeTimeoutNanos;
    private final LongSupplier nanoTime;
    private final LongUnaryOperator uniformBelow;
    private final Map<String, Circuit> circuits = new ConcurrentHashMap<>();

    /**
     * @param threshold     deliveries in a row that could not reach an origin before its circuit opens (0: never)
     * @param maxOpenMillis the longest an open circuit waits before it probes again
     * @param probeTimeoutMillis how long a probe may take before another delivery may probe instead
     * @param uniformBelow  given n > 0, a uniform random long in [0, n)
     */
    WebhookCircuits(int threshold, long maxOpenMillis, long probeTimeoutMillis, LongSupplier nanoTime,
            LongUnaryOperator uniformBelow) {
        if (threshold < 0 || maxOpenMillis < FIRST_OPEN_MILLIS) {
            throw new IllegalArgumentException("need threshold >= 0 and maxOpenMillis >= " + FIRST_OPEN_MILLIS);
        }
        this.threshold = threshold;
        this.maxOpenMillis = maxOpenMillis;
        this.probeTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(probeTimeoutMillis);
        this.nanoTime = nanoTime;
        this.uniformBelow = uniformBelow;
    }

    /** Whether a delivery to {@code origin} may be sent now. */
    Admission admit(String origin) {
        Circuit c = threshold == 0 ? null : circuits.get(origin);
        if (c == null) {
            return Admission.SEND;
        }
        synchronized (c) {
            if (c.openMillis == 0) {
                return Admission.SEND;
            }
            long now = nanoTime.getAsLong();
            if (now - c.openUntilNanos < 0) {
                return defer(origin, c, TimeUnit.NANOSECONDS.toMillis(c.openUntilNanos - now));
            }
            if (!c.probing || now - c.probeDeadlineNanos > 0) {
                c.probing = true;
                c.probeDeadlineNanos = now + probeTimeoutNanos;
                return Admission.PROBE;
            }
            return defer(origin, c, 0); // the probe is on its way: wait for what it finds
        }
    }

    private Admission defer(String origin, Circuit c, long remainingMillis) {
        long delay = Math.max(1, remainingMillis) + uniformBelow.applyAsLong(c.openMillis + 1);
        return new Admission(false, delay, "not sent: " + origin + " could not be reached by " + c.failures
                + " deliveries in a row (last: " + c.lastError + "); its circuit is open, next probe in "
                + Math.max(0, remainingMillis) + " ms");
    }

    /**
     * What a sent delivery found: {@code reached} when the origin answered at all. {@code error} says
     * what happened otherwise.
     */
    void record(String origin, Admission admission, boolean reached, String error) {
        if (threshold == 0) {
            return;
        }
        if (reached) {
            circuits.remove(origin);
            return;
        }
        Circuit c = circuits.computeIfAbsent(origin, k -> new Circuit());
        synchronized (c) {
            c.failures++;
            c.lastError = error;
            boolean opens = c.openMillis == 0 ? c.failures >= threshold : admission.probe();
            if (opens) {
                c.openMillis = c.openMillis == 0 ? FIRST_OPEN_MILLIS : Math.min(maxOpenMillis, c.openMillis * 2);
                c.openUntilNanos = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(c.openMillis);
                c.probing = false;
            }
        }
    }

    /** The circuit of {@code origin} now: {@code closed}, {@code open} (nothing is sent) or {@code half_open} (one delivery probes). */
    String state(String origin) {
        Circuit c = threshold == 0 ? null : circuits.get(origin);
        if (c == null) {
            return "closed";
        }
        synchronized (c) {
            if (c.openMillis == 0) {
                return "closed";
            }
            return nanoTime.getAsLong() - c.openUntilNanos < 0 ? "open" : "half_open";
        }
    }

    /** Origins whose circuit is open now (for logs and tests). */
    int open() {
        return (int) circuits.values().stream().filter(c -> {
            synchronized (c) {
                return c.openMillis > 0;
            }
        }).count();
    }
}
