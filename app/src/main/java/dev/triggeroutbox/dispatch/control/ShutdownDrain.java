package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.targets.control.Targets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * What a node does when it stops (undeploy, redeploy, server shutdown), before the parts it delivers with
 * go away: it stops listening for other nodes' commits (the connection goes back to the pool), stops claiming, gives back the rows it claimed but never started (token-fenced, attempt not
 * spent), waits up to {@code outbox.dispatch.shutdown-grace-ms} for the deliveries in flight and finishes
 * each with its result, cuts short what is still running then (finished as a failed attempt, rescheduled),
 * and logs what became of them. Without it the deliveries were cut by the HTTP client and the delivery
 * threads going away, and their rows waited a whole lease to be delivered a second time.
 * <p>
 * Runs once, from the dispatcher's {@code @PreDestroy} or when the application context is about to be
 * destroyed, whichever the server does first.
 */
@ApplicationScoped
public class ShutdownDrain {

    private static final Logger LOG = Logger.getLogger(ShutdownDrain.class.getName());
    /** After cutting deliveries short, how long their failures may take to be finished. */
    private static final long CUT_FINISH_WAIT_MILLIS = 5_000;
    private static final long LOOK_EVERY_MILLIS = 10;

    @Inject
    DispatchSettings settings;

    @Inject
    DispatchCycle cycle;

    @Inject
    DrainLoop drainLoop;

    @Inject
    CommitListener commitListener;

    @Inject
    Targets targets;

    @Inject
    Finisher finisher;

    @Inject
    DispatchCounters counters;

    private final AtomicBoolean drained = new AtomicBoolean();

    void applicationEnding(@Observes @BeforeDestroyed(ApplicationScoped.class) Object event) {
        drain();
    }

    /** Stops this node's dispatching and settles every row it holds; returns once done (bounded by the grace). */
    public void drain() {
        if (!settings.enabled() || !drained.compareAndSet(false, true)) {
            return;
        }
        long start = System.nanoTime();
        DispatchCounters.Totals before = counters.totals();
        commitListener.stop();
        cycle.stopClaiming();
        drainLoop.stop();
        int inFlight = cycle.inFlight();
        targets.stopStarting();
        int cut = 0;
        if (!idleBy(start + TimeUnit.MILLISECONDS.toNanos(settings.shutdownGraceMillis()))) {
            cut = cycle.cutShort("the node stopped before the delivery ended (outbox.dispatch.shutdown-grace-ms "
                    + settings.shutdownGraceMillis() + ")");
            idleBy(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CUT_FINISH_WAIT_MILLIS));
        }
        int left = cycle.inFlight();
        finisher.stop();
        DispatchCounters.Totals done = counters.totals().since(before);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        int cutShort = cut;
        LOG.info(() -> "dispatcher stopped: " + inFlight + " row(s) in flight; finished " + done.delivered()
                + " delivered, "
                + done.retried() + " to retry (" + cutShort + " of them cut short by the end of the grace), "
                + done.dead() + " dead-lettered; released " + done.released() + " never started (attempt given back); "
                + done.fenced() + " fenced; " + left + " left to their lease; in " + tookMillis + " ms");
    }

    /** Waits until no row is in flight on this node, at most until {@code deadline} (nanoTime); whether it is so. */
    private boolean idleBy(long deadline) {
        while (cycle.inFlight() > 0) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(LOOK_EVERY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
