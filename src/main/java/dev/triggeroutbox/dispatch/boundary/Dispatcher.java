package dev.triggeroutbox.dispatch.boundary;

import dev.triggeroutbox.dispatch.control.Claims;
import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.dispatch.control.DispatchSettings;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.dispatch.control.DrainLoop;
import dev.triggeroutbox.dispatch.control.Housekeeping;
import dev.triggeroutbox.dispatch.control.NodeHeartbeat;
import dev.triggeroutbox.dispatch.control.OutageLog;
import dev.triggeroutbox.dispatch.control.ShutdownDrain;
import dev.triggeroutbox.triggers.control.CronFires;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The poll timer of this node (every node has its own; nodes coordinate only through the database). Each
 * tick recovers expired leases, fires due cron triggers, runs the housekeeping jobs (each table's owner
 * prunes its own table) and wakes the drain loop; commits that enqueue wake it too, so the timer is the
 * safety net, not the latency path.
 * <p>
 * The ticks come from a thread of its own (the server's managed thread factory) that waits on the
 * monotonic clock, not from an EJB interval timer: WildFly and Payara schedule those on {@code java.util.Timer},
 * which follows the wall clock, so a clock stepped back (NTP correcting a clock that ran fast) stopped the
 * ticks, the heartbeat and the database-clock offset for as long as the step. When the node stops, the
 * ticks end and the {@link ShutdownDrain} settles the rows in flight before the node leaves the node list.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrations")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Dispatcher {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());
    private static final int RECOVER_LIMIT = 1_000;

    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    DispatchSettings settings;

    @Inject
    DrainLoop drainLoop;

    @Inject
    Claims claims;

    @Inject
    DispatchCounters counters;

    @Inject
    DispatcherSwitch dispatcherSwitch;

    @Inject
    CronFires cronFires;

    @Inject
    @ConfigProperty(name = "outbox.cron.enabled", defaultValue = "true")
    boolean cronEnabled;

    @Inject
    NodeHeartbeat heartbeat;

    @Inject
    Housekeeping housekeeping;

    @Inject
    ShutdownDrain shutdownDrain;

    private final OutageLog outage = new OutageLog(LOG, "dispatcher housekeeping");
    private Thread ticker;
    private volatile boolean stopping;
    /** When the last whole look for expired leases ran (nanoTime); valid once recoveredUpTo is set. */
    private long lastRecovery;
    private java.time.OffsetDateTime recoveredUpTo;

    @PostConstruct
    void start() {
        if (!settings.enabled()) {
            drainLoop.disable();
            LOG.info("outbox dispatcher disabled on this node (outbox.dispatch.enabled=false)"
                    + (cronEnabled ? "; it still fires cron triggers" : ""));
            if (!cronEnabled) {
                return;
            }
        }
        ticker = threadFactory.newThread(this::tickEveryPoll);
        ticker.start();
    }

    @PreDestroy
    void stop() {
        stopping = true;
        if (ticker != null) {
            LockSupport.unpark(ticker);
            try {
                ticker.join(TimeUnit.SECONDS.toMillis(10)); // a tick under way ends first (it may be in a transaction)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        shutdownDrain.drain();
        try {
            heartbeat.leave();
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "node not removed from dispatcher_nodes; it ages out", e);
        }
    }

    /** Ticks at once, then every poll interval on the monotonic clock, until the node stops. */
    private void tickEveryPoll() {
        long period = TimeUnit.MILLISECONDS.toNanos(settings.pollIntervalMillis());
        long next = System.nanoTime();
        while (!stopping) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
                continue;
            }
            try {
                tick();
            } catch (RuntimeException e) {
                outage.failed(e); // this thread must not die: liveness would report the node stalled
            }
            next += period;
            if (System.nanoTime() - next > 0) {
                next = System.nanoTime(); // a tick that took longer than the period is not caught up with a burst
            }
        }
    }

    void tick() {
        counters.ticked();
        boolean dispatching = settings.enabled();
        try {
            if (dispatching) {
                followTheSwitch();
            }
            // a node that does not dispatch shows as paused
            heartbeat.beat(!dispatching || drainLoop.paused());
            if (dispatching) {
                recoverLeases();
            }
            if (cronEnabled) {
                cronFires.fireDue();
            }
            if (dispatching) {
                housekeeping.run();
            }
            outage.succeeded();
        } catch (Exception e) {
            // never let the container retry a failed tick; the next one comes soon
            outage.failed(e);
        }
        if (dispatching) {
            drainLoop.wake();
        }
    }

    /** Pauses or resumes this node's drain loop as the cluster-wide switch says. */
    private void followTheSwitch() throws SQLException {
        boolean paused = dispatcherSwitch.paused();
        if (paused != drainLoop.paused()) {
            LOG.info(paused ? "dispatching paused (cluster-wide switch)" : "dispatching resumed");
            if (paused) {
                drainLoop.pause();
            } else {
                drainLoop.resume();
            }
        }
    }

    /**
     * Expired leases are looked for on every tick, from where the previous look ended (on the database
     * clock), so a crashed node's rows come back at most a poll interval after their lease; a look from
     * the start, which walks the whole lease index, runs only every quarter lease (at most every 5 s) and
     * catches what an earlier look skipped (rows locked at that moment, more than its limit, a claim that
     * committed late).
     */
    private void recoverLeases() throws SQLException {
        long now = System.nanoTime();
        long every = TimeUnit.MILLISECONDS.toNanos(Math.max(settings.pollIntervalMillis(), Math.min(settings.leaseMillis() / 4, 5_000)));
        boolean whole = recoveredUpTo == null || now - lastRecovery >= every;
        Claims.Recovered recovered = claims.recoverExpiredLeases(RECOVER_LIMIT, whole ? null : recoveredUpTo);
        if (whole) {
            lastRecovery = now;
        }
        // a full look may have left more behind: the next one starts where this one started
        recoveredUpTo = recovered.rows() == RECOVER_LIMIT ? (whole ? null : recoveredUpTo) : recovered.lookedUpTo();
        if (recovered.rows() > 0) {
            counters.leasesRecovered(recovered.rows());
            LOG.info(() -> recovered.rows() + " expired lease(s) recovered; those rows are claimable again");
        }
    }
}
