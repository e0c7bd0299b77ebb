package dev.triggeroutbox.dispatch.control;

import jakarta.enterprise.context.ApplicationScoped;
import dev.triggeroutbox.outbox.entity.SourceKind;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What this node's dispatcher did since it started; read by the admin side and by tests. */
@ApplicationScoped
public class DispatchCounters {

    private final LongAdder claimed = new LongAdder();
    private final LongAdder claims = new LongAdder();
    private final LongAdder finishingWindows = new LongAdder();
    private final LongAdder delivered = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();
    private final LongAdder fenced = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final LongAdder leasesRecovered = new LongAdder();
    private final Map<String, LongAdder> enqueuedByKind = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> deliveredByKind = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> retriedByKind = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> deadByKind = new ConcurrentHashMap<>();
    private final DeliveryTimes deliveryTimes = new DeliveryTimes();
    /** When the poll timer last fired (nanoTime), valid once {@code ticked}. */
    private volatile long lastTickNanos;
    private volatile boolean ticked;

    void record(Claims.Finished finished) {
        finishingWindows.increment();
        delivered.add(finished.delivered());
        retried.add(finished.retried());
        deadLettered.add(finished.dead());
        fenced.add(finished.fenced());
        released.add(finished.released());
        cancelled.add(finished.cancelled());
        add(deliveredByKind, finished.deliveredByKind());
        add(retriedByKind, finished.retriedByKind());
        add(deadByKind, finished.deadByKind());
    }

    private static void add(Map<String, LongAdder> into, Map<String, Integer> counts) {
        counts.forEach((kind, n) -> into.computeIfAbsent(kind, k -> new LongAdder()).add(n));
    }

    /** How many rows this node has finished so far, by outcome (released: given back unstarted). */
    public record Totals(long delivered, long retried, long dead, long released, long fenced) {
        Totals since(Totals before) {
            return new Totals(delivered - before.delivered, retried - before.retried, dead - before.dead,
                    released - before.released, fenced - before.fenced);
        }
    }

    public Totals totals() {
        return new Totals(delivered.sum(), retried.sum(), deadLettered.sum(), released.sum(), fenced.sum());
    }

    /** Rows of this kind written by transactions that committed on this node. */
    public void enqueued(SourceKind kind, int rows) {
        enqueuedByKind.computeIfAbsent(kind.wire(), k -> new LongAdder()).add(rows);
    }

    void deliveryTook(long nanos) {
        deliveryTimes.observe(nanos);
    }

    public Map<String, Long> enqueuedByKind() {
        return snapshot(enqueuedByKind);
    }

    public Map<String, Long> deliveredByKind() {
        return snapshot(deliveredByKind);
    }

    public Map<String, Long> retriedByKind() {
        return snapshot(retriedByKind);
    }

    public Map<String, Long> deadLetteredByKind() {
        return snapshot(deadByKind);
    }

    public DeliveryTimes deliveryTimes() {
        return deliveryTimes;
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> counts) {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((k, v) -> copy.put(k, v.sum()));
        return copy;
    }

    public void leasesRecovered(int count) {
        leasesRecovered.add(count);
    }

    /** The poll timer fired (liveness). */
    public void ticked() {
        lastTickNanos = System.nanoTime();
        ticked = true;
    }

    /** Milliseconds since the poll timer last fired on this node, on the monotonic clock; -1 before the first tick. */
    public long millisSinceLastTick() {
        return ticked ? (System.nanoTime() - lastTickNanos) / 1_000_000 : -1;
    }

    /** Rows this node has claimed (each claim counts its rows). */
    public long claimed() {
        return claimed.sum();
    }

    void claimed(int rows) {
        claimed.add(rows);
        claims.increment();
    }

    /**
     * Claim statements this node has run (with or without rows): rows claimed per claim is what a claim's fixed cost
     * is spread over.
     */
    public long claims() {
        return claims.sum();
    }

    /** Finishing transactions this node has committed (one per window of ended deliveries). */
    public long finishingWindows() {
        return finishingWindows.sum();
    }

    public long delivered() {
        return delivered.sum();
    }

    public long retried() {
        return retried.sum();
    }

    public long deadLettered() {
        return deadLettered.sum();
    }

    /** Rows cancelled while in flight that this node finished as cancelled (their attempt did not deliver). */
    public long cancelled() {
        return cancelled.sum();
    }

    /** Late results discarded because their claim was no longer held (zombie completions). */
    public long fenced() {
        return fenced.sum();
    }

    public long leasesRecovered() {
        return leasesRecovered.sum();
    }
}
