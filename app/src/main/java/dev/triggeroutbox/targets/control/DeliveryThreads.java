package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The threads that run deliveries which block (handlers, JMS sends): {@code outbox.delivery.threads} of
 * them, made by the server's managed thread factory (so they carry this application's naming and class
 * loader). Not the server's default managed executor: WildFly sizes that to twice the processors and
 * Payara to one thread, so a handler that waits on I/O would hold back every other delivery.
 * <p>
 * Shared fairly between apps: each app has a queue of its own, a free thread serves the apps' queues in
 * turn, and one app never runs more than {@code outbox.delivery.threads-per-app} deliveries at once, so
 * one app's hanging handler leaves the other threads to the other apps. A delivery's timeout starts when
 * it gets a thread; one still waiting at its row's start deadline is given back unstarted
 * ({@link DeliveryResult.NotStarted}: no attempt spent) instead of timing out without having run.
 */
@ApplicationScoped
public class DeliveryThreads {

    private static final Logger LOG = Logger.getLogger(DeliveryThreads.class.getName());
    private static final long SWEEP_EVERY_MILLIS = 1_000;

    /** Threads per node; more let more handlers that wait on I/O run side by side. */
    @Inject
    @ConfigProperty(name = "outbox.delivery.threads", defaultValue = "32")
    int threads;

    /**
     * Most of those threads one app may hold at once; {@code 0} (the default) means half of them. Equal to
     * {@code outbox.delivery.threads}: one app may take every thread.
     */
    @Inject
    @ConfigProperty(name = "outbox.delivery.threads-per-app", defaultValue = "0")
    int threadsPerApp;

    @Resource
    ManagedThreadFactory threadFactory;

    /** One delivery waiting for, or running on, a thread. */
    private static final class Job {
        final AppId app;
        final long startBy;
        final Duration timeout;
        final Supplier<DeliveryResult> work;
        final CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
        private Thread runner;

        Job(AppId app, long startBy, Duration timeout, Supplier<DeliveryResult> work) {
            this.app = app;
            this.startBy = startBy;
            this.timeout = timeout;
            this.work = work;
        }

        synchronized void running(Thread thread) {
            runner = thread;
        }

        /** Given up on (its timeout, the dispatcher's deadline): the thread running it is interrupted. */
        synchronized void stop() {
            if (runner != null) {
                runner.interrupt();
            }
        }
    }

    private final Object lock = new Object();
    private final Map<AppId, ArrayDeque<Job>> queues = new HashMap<>();
    /** Apps with waiting deliveries, in the order free threads serve them. */
    private final ArrayDeque<AppId> turns = new ArrayDeque<>();
    private final Map<AppId, Integer> running = new HashMap<>();
    private final List<Thread> workers = new ArrayList<>();
    private int perApp;
    private boolean closed;
    private boolean sweeping;

    @PostConstruct
    void open() {
        if (threads < 1) {
            throw new IllegalStateException("outbox.delivery.threads must be at least 1");
        }
        if (threadsPerApp < 0 || threadsPerApp > threads) {
            throw new IllegalStateException(
                    "outbox.delivery.threads-per-app must be 0 (half the threads) or 1..outbox.delivery.threads");
        }
        perApp = threadsPerApp == 0 ? Math.max(1, threads / 2) : threadsPerApp;
        for (int i = 0; i < threads; i++) {
            Thread worker = threadFactory.newThread(this::serve);
            workers.add(worker);
            worker.start();
        }
    }

    @PreDestroy
    void close() {
        stopStarting();
        // the shutdown drain has let the running deliveries end or cut them short; what still runs is interrupted
        workers.forEach(Thread::interrupt);
    }

    /**
     * The node is stopping: no delivery starts any more. Those waiting for a thread are given back unstarted
     * ({@link DeliveryResult.NotStarted}: their rows are released, no attempt spent), as is anything queued
     * later; the running ones go on. How many were given back.
     */
    public int stopStarting() {
        List<Job> waiting = new ArrayList<>();
        synchronized (lock) {
            closed = true;
            queues.values().forEach(waiting::addAll);
            queues.clear();
            turns.clear();
            lock.notifyAll();
        }
        waiting.forEach(job -> job.result.complete(new DeliveryResult.NotStarted("the node is stopping")));
        return waiting.size();
    }

    /** Most threads one app holds at once. */
    public int perApp() {
        return perApp;
    }

    /**
     * Queues {@code work} for {@code row}'s app. The returned future completes with its result; completing
     * it exceptionally (the timeout, armed when the work gets a thread, or the dispatcher's deadline)
     * interrupts the thread running it.
     */
    public CompletableFuture<DeliveryResult> start(ClaimedRow row, Duration timeout, Supplier<DeliveryResult> work) {
        Job job = new Job(row.appId(), row.startBy(), timeout, work);
        job.result.whenComplete((r, e) -> {
            if (e != null) {
                job.stop();
            }
        });
        boolean sweep;
        synchronized (lock) {
            if (closed) {
                job.result.complete(new DeliveryResult.NotStarted("the node is stopping"));
                return job.result;
            }
            ArrayDeque<Job> queue = queues.computeIfAbsent(job.app, app -> new ArrayDeque<>());
            if (queue.isEmpty()) {
                turns.addLast(job.app);
            }
            queue.addLast(job);
            if (running.getOrDefault(job.app, 0) < perApp) {
                lock.notify(); // else one of the app's own threads takes it when it is done
            }
            sweep = !sweeping;
            sweeping = true;
        }
        if (sweep) {
            scheduleSweep();
        }
        return job.result;
    }

    private void serve() {
        while (true) {
            Job job;
            synchronized (lock) {
                while ((job = next()) == null) {
                    if (closed) {
                        return;
                    }
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        if (closed) {
                            return;
                        }
                    }
                }
            }
            try {
                run(job);
            } finally {
                synchronized (lock) {
                    running.merge(job.app, -1, (a, b) -> a + b == 0 ? null : a + b);
                }
                Thread.interrupted(); // an interrupt meant for this delivery must not reach the next one
            }
        }
    }

    private void run(Job job) {
        if (job.result.isDone()) {
            return; // given up on before it began
        }
        job.running(Thread.currentThread());
        try {
            job.result.orTimeout(job.timeout.toMillis(), TimeUnit.MILLISECONDS); // from now: the work runs
            if (!job.result.isDone()) {
                job.result.complete(job.work.get());
            }
        } catch (RuntimeException e) {
            job.result.complete(DeliveryResult.failed("delivery failed: " + e.getMessage()));
        } finally {
            job.running(null);
        }
    }

    /** The next job a free thread runs: the apps in turn, passing over those at their share. Holds the lock. */
    private Job next() {
        long now = System.nanoTime();
        for (int apps = turns.size(); apps > 0; apps--) {
            AppId app = turns.pollFirst();
            if (app == null) {
                return null;
            }
            if (running.getOrDefault(app, 0) >= perApp) {
                turns.addLast(app);
                continue;
            }
            ArrayDeque<Job> queue = queues.get(app);
            Job job = queue.pollFirst();
            if (queue.isEmpty()) {
                queues.remove(app);
            } else {
                turns.addLast(app);
            }
            if (now - job.startBy > 0) {
                job.result.complete(notStartedInTime());
                apps++; // this app's turn is not used up by a row given back
                continue;
            }
            running.merge(app, 1, Integer::sum);
            return job;
        }
        return null;
    }

    /** While deliveries wait, looks every second for those past their start deadline (every thread may be busy). */
    private void scheduleSweep() {
        CompletableFuture.delayedExecutor(SWEEP_EVERY_MILLIS, TimeUnit.MILLISECONDS, Runnable::run)
                .execute(this::sweep);
    }

    private void sweep() {
        List<Job> late = new ArrayList<>();
        boolean again;
        synchronized (lock) {
            long now = System.nanoTime();
            for (var queues = this.queues.values().iterator(); queues.hasNext();) {
                ArrayDeque<Job> queue = queues.next();
                queue.removeIf(job -> {
                    boolean gone = now - job.startBy > 0 || job.result.isDone();
                    if (gone) {
                        late.add(job);
                    }
                    return gone;
                });
                if (queue.isEmpty()) {
                    queues.remove();
                }
            }
            turns.removeIf(app -> !this.queues.containsKey(app));
            again = !this.queues.isEmpty() && !closed;
            sweeping = again;
        }
        late.forEach(job -> job.result.complete(notStartedInTime()));
        if (!late.isEmpty()) {
            LOG.log(Level.FINE,
                    () -> late.size() + " delivery(ies) found no free thread in time; given back unstarted");
        }
        if (again) {
            scheduleSweep();
        }
    }

    private static DeliveryResult notStartedInTime() {
        return new DeliveryResult.NotStarted("no delivery thread was free in time");
    }
}
