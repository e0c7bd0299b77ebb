package dev.triggeroutbox.dispatch.boundary;

import dev.triggeroutbox.dispatch.control.Claims;
import dev.triggeroutbox.dispatch.control.CommitListener;
import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.dispatch.control.DispatchSettings;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.dispatch.control.DrainLoop;
import dev.triggeroutbox.dispatch.control.Housekeeping;
import dev.triggeroutbox.dispatch.control.NodeHeartbeat;
import dev.triggeroutbox.dispatch.control.OutageLog;
import dev.triggeroutbox.dispatch.control.ShutdownDrain;
import dev.triggeroutbox.holds.control.Holds;
import dev.triggeroutbox.triggers.control.CronFires;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The poll timer of this node (every node has its own; nodes coordinate only through the database). Each
 * tick recovers expired leases, parks held rows out of the claims' way and puts released ones back ({@link Holds}),
 * fires due cron triggers, runs the housekeeping jobs (each table's owner prunes its own table) and wakes the drain loop; commits that enqueue wake it too, on this node directly and
 * on every node through the {@link CommitListener}, so the timer is the safety net, not the latency path.
 * <p>
 * The ticks come from a non-persistent EJB timer, armed again for one poll interval at the end of each tick: ticks
 * never overlap, and a slow one (the first, at boot, with its housekeeping) only delays the next, where an interval
 * timer's overlapping execution would be skipped with a warning in the server's log. WildFly and Payara run those on {@code
 * java.util.Timer}, which follows the wall clock, so a clock stepped back (NTP correcting a clock that ran
 * fast) stops them for as long as the step; a watchdog thread of its own, waiting on the monotonic clock,
 * ticks in their place whenever the timer has been silent for {@link #SILENT_PERIODS} poll intervals, and
 * logs it. When the node stops, the ticks end and the {@link ShutdownDrain} settles the rows in flight
 * before the node leaves the node list.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrations")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Dispatcher {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());
    private static final int RECOVER_LIMIT = 1_000;
    /** Poll intervals without a timer tick after which the watchdog ticks instead. */
    static final int SILENT_PERIODS = 3;

    @Resource
    TimerService timers;

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
    Holds holds;

    @Inject
    ShutdownDrain shutdownDrain;

    @Inject
    CommitListener commitListener;

    private final OutageLog outage = new OutageLog(LOG, "dispatcher housekeeping");
    private Thread watchdog;
    private volatile Timer timer;
    private volatile boolean stopping;
    private final ReentrantLock ticking = new ReentrantLock();
    /** When the last tick began (nanoTime). */
    private volatile long lastTick = System.nanoTime();
    private volatile boolean standingIn;
    private volatile boolean timerTicked;
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
        timer = timers.createSingleActionTimer(1, new TimerConfig("outbox-dispatcher", false));
        if (settings.enabled() && settings.notifyOnCommit()) {
            commitListener.start();
        }
        watchdog = threadFactory.newThread(this::standInWhenSilent);
        watchdog.start();
    }

    @PreDestroy
    void stop() {
        stopping = true;
        if (timer != null) {
            try {
                timer.cancel();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "timer already gone", e);
            }
        }
        if (watchdog != null) {
            LockSupport.unpark(watchdog);
            try {
                watchdog.join(TimeUnit.SECONDS.toMillis(10)); // a tick under way ends first (it may be in a transaction)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ticking.lock(); // a timer tick under way ends first too
        ticking.unlock();
        shutdownDrain.drain();
        try {
            heartbeat.leave();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "node not removed from dispatcher_nodes; it ages out", e);
        }
    }

    /**
     * Watches the ticks on the monotonic clock until the node stops: while the timer is silent for longer
     * than {@link #SILENT_PERIODS} poll intervals (the wall clock was stepped back), ticks every interval itself.
     */
    private void standInWhenSilent() {
        long period = TimeUnit.MILLISECONDS.toNanos(settings.pollIntervalMillis());
        while (!stopping) {
            // once standing in, the watchdog keeps the poll interval itself until the timer ticks again
            long bound = standingIn ? period : SILENT_PERIODS * period;
            long silent = System.nanoTime() - lastTick;
            if (silent < bound) {
                LockSupport.parkNanos(this, bound - silent);
                continue;
            }
            if (!standingIn && timerTicked) { // before the timer's first tick (a slow boot) it stands in quietly
                standingIn = true;
                LOG.warning(
                        () -> "the dispatcher's EJB timer has not ticked for " + TimeUnit.NANOSECONDS.toMillis(silent)
                                + " ms (was the clock stepped back?); ticking on the monotonic clock until it does");
            }
            tickOnce(bound);
        }
    }

    @Timeout
    void onTimer() {
        try {
            timerTicked = true;
            if (standingIn) {
                standingIn = false;
                LOG.info("the dispatcher's EJB timer ticks again");
            }
            tickOnce(0);
        } finally {
            armAgain();
        }
    }

    /** The next tick, one poll interval after this one ended; none once the node stops. */
    private void armAgain() {
        if (stopping) {
            return;
        }
        try {
            timer = timers.createSingleActionTimer(settings.pollIntervalMillis(),
                    new TimerConfig("outbox-dispatcher", false));
        } catch (RuntimeException e) { // the bean is being undeployed: the watchdog ticks until it has stopped
            if (!stopping) {
                LOG.log(Level.WARNING, "the dispatcher's next timer tick could not be set; the watchdog ticks instead",
                        e);
            }
        }
    }

    /**
     * One tick if the last one began at least {@code silentNanos} ago, unless one is under way (the timer's
     * and the watchdog's never overlap) or the node is stopping.
     */
    private void tickOnce(long silentNanos) {
        if (stopping || !ticking.tryLock()) {
            return;
        }
        try {
            if (System.nanoTime() - lastTick >= silentNanos) {
                lastTick = System.nanoTime();
                tick();
            }
        } catch (RuntimeException e) {
            outage.failed(e); // the watchdog must not die: liveness would report the node stalled
        } finally {
            ticking.unlock();
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
                Holds.Settled settled = holds.settle();
                if (settled.parked() + settled.unparked() > 0) {
                    LOG.fine(() -> settled.parked() + " held row(s) parked, " + settled.unparked()
                            + " released row(s) put back");
                }
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
    private void followTheSwitch() {
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
        long every = TimeUnit.MILLISECONDS
                .toNanos(Math.max(settings.pollIntervalMillis(), Math.min(settings.leaseMillis() / 4, 5_000)));
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
