package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.dispatch.entity.BatchOutcome;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.replies.control.Replies;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Finishes rows as their deliveries end, in short windows: whatever ended within {@link #WINDOW_MILLIS}
 * of the first, at most {@link #WINDOW_ROWS}, of any claims, is finished by one short transaction of
 * set-based statements. A row never waits for the slowest delivery of the claim it came with, so an
 * invoke's answer is stored (and its caller woken) in the first window after it arrives.
 */
@ApplicationScoped
public class Finisher {

    private static final Logger LOG = Logger.getLogger(Finisher.class.getName());
    static final int WINDOW_ROWS = 500;
    static final long WINDOW_MILLIS = 5;
    /** How often a window being gathered looks for more ended rows. */
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * One: while a window is being finished the next one fills (measured: windows of 478 rows on average
     * instead of 290 with two threads, the same drain rate, two fifths fewer finishing transactions).
     */
    private static final int THREADS = 1;

    /** A delivery that ended, with the claim it ran under. */
    private record Ended(String node, ClaimToken token, ClaimedRow row, int maxAttempts, DeliveryResult result) {
    }

    @Inject
    Claims claims;

    @Inject
    DispatchSettings settings;

    @Inject
    DispatchCounters counters;

    @Inject
    Replies replies;

    @Inject
    DrainLoop drainLoop;

    @Resource
    ManagedThreadFactory threadFactory;

    /** Put behind everything queued when the finisher stops: a thread that takes it ends. */
    private static final Ended STOP = new Ended(null, null, null, 0, null);
    private static final long STOP_WAIT_MILLIS = 5_000;

    private final LinkedBlockingQueue<Ended> ended = new LinkedBlockingQueue<>();
    /** Told how many rows a window finished, so their permits go back ({@link DispatchCycle}); set once at its start. */
    private volatile IntConsumer finishedRows = rows -> {};
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;

    @PostConstruct
    void open() {
        for (int i = 0; i < THREADS; i++) {
            Thread thread = threadFactory.newThread(this::serve);
            threads.add(thread);
            thread.start();
        }
    }

    @PreDestroy
    void close() {
        stop();
    }

    /**
     * Finishes what has ended so far, then stops: each thread finishes the windows queued before this call and
     * ends (an interrupt in the middle of a finishing transaction would leave its rows claimed until their
     * lease, so a thread is interrupted only when it does not end within {@link #STOP_WAIT_MILLIS}); whatever
     * ends later is finished here, on the caller's thread. Safe to call twice.
     */
    public void stop() {
        if (!closed) {
            closed = true;
            threads.forEach(t -> ended.add(STOP));
            for (Thread thread : threads) {
                if (!DrainLoop.endWithin(thread, STOP_WAIT_MILLIS)) {
                    return;
                }
            }
        }
        List<Ended> left = new ArrayList<>();
        ended.drainTo(left);
        left.removeIf(e -> e == STOP);
        if (!left.isEmpty()) {
            finish(left);
        }
    }

    /**
     * Takes the result of one delivery; it is finished in the next window, and then its permit goes back
     * ({@link #whenFinished}, whether the finishing transaction committed or failed: a row it could not finish comes
     * back after its lease).
     */
    void whenFinished(IntConsumer rows) {
        finishedRows = rows;
    }

    void ended(String node, ClaimToken token, ClaimedRow row, int maxAttempts, DeliveryResult result) {
        ended.add(new Ended(node, token, row, maxAttempts, result));
    }

    private void serve() {
        boolean last = false;
        while (!last) {
            List<Ended> window = new ArrayList<>();
            try {
                Ended first = ended.take();
                if (first == STOP) {
                    return;
                }
                window.add(first);
                gather(window);
                last = window.removeIf(e -> e == STOP);
            } catch (InterruptedException e) {
                ended.addAll(window); // finished by close()
                return;
            }
            finish(window);
        }
    }

    /**
     * Fills {@code window} with what ends within {@link #WINDOW_MILLIS} of its first row, at most {@link #WINDOW_ROWS}:
     * looking every {@link #GATHER_NANOS} rather than waiting on the queue, whose every row would wake this thread
     * (deliveries end one at a time, so a waiting finisher was woken, and a thread switched, once per row).
     */
    private void gather(List<Ended> window) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WINDOW_MILLIS);
        while (true) {
            ended.drainTo(window, WINDOW_ROWS - window.size());
            long left = until - System.nanoTime();
            if (window.size() >= WINDOW_ROWS || left <= 0 || window.get(window.size() - 1) == STOP) {
                return;
            }
            LockSupport.parkNanos(Math.min(left, GATHER_NANOS));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private void finish(List<Ended> window) {
        Map<String, BatchOutcome> byNode = new LinkedHashMap<>();
        Map<String, List<UUID>> replyTos = new LinkedHashMap<>();
        for (Ended e : window) {
            settle(byNode.computeIfAbsent(e.node(), n -> new BatchOutcome()), e);
            if (e.row().replyTo() != null) {
                replyTos.computeIfAbsent(e.node(), n -> new ArrayList<>()).add(e.row().replyTo().value());
            }
        }
        try {
            byNode.forEach((node, outcome) -> finish(node, outcome, replyTos.getOrDefault(node, List.of())));
        } finally {
            // a window's permits come back at once, so a claim waiting for room sees all of it, not its first row's
            finishedRows.accept(window.size());
            // dead letters may have told dead_letter triggers; released rows are due again; and the
            // rows just finished made room that a claim may have been waiting for
            drainLoop.wake();
        }
    }

    private void settle(BatchOutcome outcome, Ended e) {
        ClaimedRow row = e.row();
        if (e.result() instanceof DeliveryResult.Delivered d) {
            outcome.delivered(row.id(), e.token(), new BatchOutcome.Attempt(d.httpStatus(), null));
            if (row.replyTo() != null) {
                outcome.reply(row.id(), d.reply());
            }
        } else if (e.result() instanceof DeliveryResult.Rejected r) {
            outcome.dead(row.id(), e.token(), r.error(), r.disableTrigger() && row.triggerId() != null,
                    new BatchOutcome.Attempt(r.httpStatus(), r.answer()));
        } else if (e.result() instanceof DeliveryResult.Failed f) {
            BatchOutcome.Attempt attempt = new BatchOutcome.Attempt(f.httpStatus(), f.answer());
            if (row.attemptCount() >= e.maxAttempts()) {
                outcome.dead(row.id(), e.token(), f.error(), false, attempt);
            } else {
                long delay = settings.retryPolicy().delayMillis(row.attemptCount(), f.retryAfter());
                outcome.retry(row.id(), e.token(), delay, f.error(), attempt);
            }
        } else if (e.result() instanceof DeliveryResult.NotStarted) {
            outcome.release(row.id(), e.token());
        }
    }

    private void finish(String node, BatchOutcome outcome, List<UUID> replyTos) {
        try {
            Claims.Finished finished = claims.finish(node, outcome);
            counters.record(finished);
            if (!replyTos.isEmpty()) {
                replies.finished(replyTos);
            }
            if (finished.fenced() > 0) {
                LOG.warning(() -> finished.fenced() + " late result(s) of node " + node
                        + " discarded: the lease had expired or the row was claimed again");
            }
            if (finished.released() > 0) {
                LOG.fine(() -> finished.released() + " row(s) given back unstarted (no delivery thread free in time)");
            }
        } catch (Exception e) {
            // the rows keep their claim until the lease expires, then another claim retries them
            LOG.log(Level.WARNING, "finishing " + outcome.size() + " row(s) failed: " + e.getMessage(), e);
        }
    }
}
