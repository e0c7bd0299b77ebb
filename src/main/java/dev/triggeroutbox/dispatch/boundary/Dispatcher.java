package dev.triggeroutbox.dispatch.boundary;

import dev.triggeroutbox.dispatch.control.Claims;
import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.dispatch.control.DispatchSettings;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.dispatch.control.DrainLoop;
import dev.triggeroutbox.dispatch.control.Housekeeping;
import dev.triggeroutbox.dispatch.control.NodeHeartbeat;
import dev.triggeroutbox.dispatch.control.OutageLog;
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
import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The poll timer of this node: a non-persistent interval timer (every node has its own; nodes
 * coordinate only through the database). Each tick recovers expired leases, fires due cron
 * triggers, runs the housekeeping jobs (each table's owner prunes its own table) and wakes the drain
 * loop; commits that enqueue wake it too, so the timer is the safety net, not the latency path.
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
    TimerService timers;

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

    private final OutageLog outage = new OutageLog(LOG, "dispatcher housekeeping");
    private Timer timer;
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
        timer = timers.createIntervalTimer(0, settings.pollIntervalMillis(), new TimerConfig("outbox-dispatcher", false));
    }

    @PreDestroy
    void stop() {
        drainLoop.pause();
        try {
            heartbeat.leave();
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "node not removed from dispatcher_nodes; it ages out", e);
        }
        if (timer != null) {
            try {
                timer.cancel();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "timer already gone", e);
            }
        }
    }

    @Timeout
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
        long now = System.currentTimeMillis();
        long every = Math.max(settings.pollIntervalMillis(), Math.min(settings.leaseMillis() / 4, 5_000));
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
