package dev.triggeroutbox.dispatch.control;

import java.time.Duration;
import java.util.function.LongUnaryOperator;

/**
 * Exponential backoff with full jitter: the delay before attempt n+1 is uniform in
 * [0, min(cap, base * 2^(n-1))]. Full jitter spreads retries of a burst that failed together, so a
 * recovering target is not hit by all of them at once. A target's {@code Retry-After} is honoured
 * as a lower bound, up to a day (so a hostile target cannot park a row for ever).
 */
public final class RetryPolicy {

    static final long RETRY_AFTER_MAX_MILLIS = 24 * 3600_000L;

    private final long baseMillis;
    private final long capMillis;
    private final LongUnaryOperator uniformBelow;

    /** @param uniformBelow given n > 0, a uniform random long in [0, n) */
    public RetryPolicy(long baseMillis, long capMillis, LongUnaryOperator uniformBelow) {
        if (baseMillis < 1 || capMillis < baseMillis) {
            throw new IllegalArgumentException("need 1 <= base <= cap, got base=" + baseMillis + " cap=" + capMillis);
        }
        this.baseMillis = baseMillis;
        this.capMillis = capMillis;
        this.uniformBelow = uniformBelow;
    }

    /** The upper bound of the delay after the given failed attempt (1-based). */
    public long ceilingMillis(int failedAttempt) {
        int shift = Math.max(0, Math.min(failedAttempt - 1, 62));
        long exp = baseMillis > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : baseMillis << shift;
        return Math.min(capMillis, exp);
    }

    /** The delay before the next attempt after {@code failedAttempt} failed. */
    public long delayMillis(int failedAttempt, Duration retryAfter) {
        long jittered = uniformBelow.applyAsLong(ceilingMillis(failedAttempt) + 1);
        if (retryAfter == null || retryAfter.isNegative()) {
            return jittered;
        }
        return Math.max(jittered, Math.min(retryAfter.toMillis(), RETRY_AFTER_MAX_MILLIS));
    }
}
