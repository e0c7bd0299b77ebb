package dev.triggeroutbox.dispatch.control;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs dispatch cycles on a managed thread until nothing is due. {@link #wake()} is cheap and safe
 * to call from anywhere (the poll timer, a committing transaction): at most one drain runs per node,
 * and a wake during a drain makes it look once more before it stops, so no wake is lost.
 */
@ApplicationScoped
public class DrainLoop {

    private static final Logger LOG = Logger.getLogger(DrainLoop.class.getName());

    @Inject
    DispatchCycle cycle;

    @Resource
    ManagedExecutorService executor;

    private final OutageLog outage = new OutageLog(LOG, "dispatch cycle");
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean wanted = new AtomicBoolean();
    private volatile boolean paused;
    /** This node does not dispatch at all ({@code outbox.dispatch.enabled=false}): wakes are ignored. */
    private volatile boolean disabled;

    public void wake() {
        wanted.set(true);
        if (!paused && !disabled && running.compareAndSet(false, true)) {
            try {
                executor.execute(this::drain);
            } catch (RuntimeException e) { // executor shutting down: the next tick or node takes over
                running.set(false);
                LOG.log(Level.FINE, "dispatcher drain not started", e);
            }
        }
    }

    /** Stops starting new cycles on this node (the running one finishes); {@link #resume()} undoes it. */
    public void pause() {
        paused = true;
    }

    /** For good: this node never claims (commits on it still enqueue; other nodes deliver). */
    public void disable() {
        disabled = true;
    }

    public void resume() {
        paused = false;
        wake();
    }

    public boolean paused() {
        return paused;
    }

    private void drain() {
        boolean failed = false;
        try {
            while (!paused && wanted.getAndSet(false)) {
                // a full batch means more may be due: claim again at once
                while (!paused && cycle.runOnce().full()) {
                    wanted.set(false);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // the database may be down; rows stay where they are and the next tick tries again
            failed = true;
            outage.failed(e);
        } finally {
            if (!failed) {
                outage.succeeded();
            }
            running.set(false);
            if (!failed && wanted.get() && !paused && !Thread.currentThread().isInterrupted()) {
                wake();
            }
        }
    }
}
