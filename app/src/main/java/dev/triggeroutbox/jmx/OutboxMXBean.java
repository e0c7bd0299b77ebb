package dev.triggeroutbox.jmx;

/**
 * {@code dev.triggeroutbox:type=Outbox}: the outbox of the whole cluster, as the console's overview shows it
 * (the same shared counts, at most {@code outbox.console.counts-max-age-ms} old, as of {@link #getCountsAsOf()}),
 * and the cluster-wide dispatcher switch. Pausing and resuming here is audited as through the admin API, with
 * the principal {@code jmx} (the server's management realm has already authenticated the caller).
 */
public interface OutboxMXBean {

    /** Rows due now and not under a lease. */
    long getPending();

    /** Rows due later (retries, {@code deliverAt}). */
    long getScheduled();

    /** Rows claimed, lease held, on any node. */
    long getInFlight();

    /** Dead letters. */
    long getDead();

    /** Rows waiting on a hold (of their app, or of their trigger: held or disabled). */
    long getHeld();

    /** The apps on hold. */
    String[] getHeldApps();

    /** Puts an app on hold (none of its rows is claimed until released); false when it was on hold already. Audited. */
    boolean holdApp(String appId);

    /** Takes an app off hold: its held rows come due in their order; how many. Audited. */
    int releaseApp(String appId);

    /** Rows delivered in the last minute, on any node. */
    long getDeliveredLastMinute();

    /** Age of the oldest due row, in seconds (0 when none is due). */
    double getOldestDueAgeSeconds();

    /** When the counts were measured, on the database clock (ISO-8601, UTC). */
    String getCountsAsOf();

    /** Whether dispatching is paused on every node. */
    boolean isPaused();

    /** Stops claiming on every node (rows in flight finish); audited. */
    void pause();

    /** Claims again on every node; audited. */
    void resume();
}
