package dev.triggeroutbox.dispatch.control;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * Runs dispatch cycles on a thread of its own (made by the server's managed thread factory) until
 * nothing is due, then sleeps until woken. It never runs on, nor blocks, a shared executor's thread:
 * when every permit is taken it waits for one here. {@link #wake()} is cheap and safe to call from
 * anywhere (the poll timer, a committing transaction, the finisher): a wake during a drain makes it look
 * once more before it sleeps, so no wake is lost.
 */
@ApplicationScoped
public class DrainLoop {

    private static final Logger LOG = Logger.getLogger(DrainLoop.class.getName());
    private static final long STOP_WAIT_MILLIS = 5_000;

    @Inject
    DispatchCycle cycle;

    @Resource
    ManagedThreadFactory threadFactory;

    private final OutageLog outage = new OutageLog(LOG, "dispatch cycle");
    private final Object signal = new Object();
    private boolean wanted;
    private Thread thread;
    private volatile boolean paused;
    /** This node does not dispatch at all ({@code outbox.dispatch.enabled=false}): wakes are ignored. */
    private volatile boolean disabled;
    private volatile boolean closed;

    public void wake() {
        if (disabled || closed) {
            return;
        }
        synchronized (signal) {
            wanted = true;
            if (thread == null) {
                thread = threadFactory.newThread(this::drain);
                thread.start();
            } else {
                signal.notify();
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

    @PreDestroy
    void close() {
        stop();
    }

    /**
     * Ends the loop for good, waiting (at most {@link #STOP_WAIT_MILLIS}) for the cycle under way to end by
     * itself: an interrupt in the middle of a claim could leave its rows claimed until their lease. Only a
     * cycle that does not end in time is interrupted.
     */
    public void stop() {
        Thread running;
        synchronized (signal) {
            closed = true;
            running = thread;
            signal.notify();
        }
        if (running != null && running != Thread.currentThread()) {
            endWithin(running, STOP_WAIT_MILLIS);
        }
    }

    /**
     * Waits for {@code thread} to end by itself, at most {@code millis}, then interrupts it and waits as long
     * again; false when the waiting thread was interrupted.
     */
    static boolean endWithin(Thread thread, long millis) {
        try {
            thread.join(millis);
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(millis);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void drain() {
        while (awaitWake()) {
            try {
                // a full claim means more may be due: claim again at once
                while (!paused && !closed && cycle.runOnce().full()) {
                    synchronized (signal) {
                        wanted = false;
                    }
                }
                outage.succeeded();
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (Exception e) {
                // the database may be down; rows stay where they are and the next tick wakes this loop again
                outage.failed(e);
            }
        }
    }

    /** Sleeps until woken while not paused; false when the loop is to end. */
    private boolean awaitWake() {
        synchronized (signal) {
            while (!closed && (!wanted || paused)) {
                try {
                    signal.wait();
                } catch (InterruptedException e) {
                    // closed, or a stray interrupt: look at the flags again
                }
            }
            wanted = false;
            return !closed;
        }
    }
}
