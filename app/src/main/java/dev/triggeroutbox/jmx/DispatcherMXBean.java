package dev.triggeroutbox.jmx;

/**
 * {@code dev.triggeroutbox:type=Dispatcher}: this node's dispatcher. Totals count since the deployment started;
 * rates are over the last ten seconds or so (measured when read, at most once a second).
 */
public interface DispatcherMXBean {

    /** How this node signs its claims ({@code outbox.node-name}). */
    String getNodeName();

    /** Whether this node claims at all ({@code outbox.dispatch.enabled}). */
    boolean isEnabled();

    /** Rows this node has claimed and not yet finished. */
    int getInFlight();

    /** Milliseconds since this node's poll timer last ticked (monotonic clock); -1 before the first tick. */
    long getMillisSinceLastTick();

    long getClaimedTotal();

    long getDeliveredTotal();

    long getRetriedTotal();

    long getDeadLetteredTotal();

    /** Late results refused because their claim was no longer held. */
    long getFencedTotal();

    long getLeasesRecoveredTotal();

    /** Rows claimed per second, lately. */
    double getClaimsPerSecond();

    /** Deliveries finished per second (delivered, retried or dead), lately. */
    double getDeliveriesPerSecond();
}
