package dev.triggeroutbox.replies.control;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Invokes waiting for their answer, holding no thread while they wait. One scheduler thread of
 * this WAR serves every waiter of the node: when this node finished a row that carries a reply id it
 * looks for those answers at once (a local signal), and every {@link #LOOK_EVERY_MILLIS} ms it looks
 * for all awaited answers in one statement, which finds those another node delivered. Each wait also
 * has a deadline on the same scheduler; whichever comes first ends it, exactly once.
 */
@ApplicationScoped
public class Replies {

    static final long LOOK_EVERY_MILLIS = 100;
    private static final Logger LOG = Logger.getLogger(Replies.class.getName());

    @Inject
    StoredReplies stored;

    /** The server's factory, as for delivery threads: the thread carries this application's naming and class loader. */
    @Resource
    ManagedThreadFactory threadFactory;

    private final Set<Wait> waits = ConcurrentHashMap.newKeySet();
    /** Reply ids to look for on the next immediate look (finished here, or a wait that just began). */
    private final Set<UUID> soon = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean soonQueued = new AtomicBoolean();
    private final AtomicBoolean failing = new AtomicBoolean();
    private ScheduledThreadPoolExecutor scheduler;

    /** One invoke waiting for the answer to {@code replyTo}. */
    public final class Wait {
        private final UUID replyTo;
        private final Consumer<Optional<StoredReplies.Reply>> answer;
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile ScheduledFuture<?> deadline;

        private Wait(UUID replyTo, Consumer<Optional<StoredReplies.Reply>> answer) {
            this.replyTo = replyTo;
            this.answer = answer;
        }

        /** Ends the wait without an answer to anyone (the caller went away). Does nothing once ended. */
        public void cancel() {
            if (ended.compareAndSet(false, true)) {
                forget();
            }
        }

        private void end(Optional<StoredReplies.Reply> reply) {
            if (ended.compareAndSet(false, true)) {
                forget();
                try {
                    answer.accept(reply);
                } catch (RuntimeException e) {
                    // the caller's connection is gone or the response was already sent: nothing to tell
                    LOG.log(Level.FINE, "invoke answer not sent", e);
                }
            }
        }

        private void forget() {
            waits.remove(this);
            ScheduledFuture<?> d = deadline;
            if (d != null) {
                d.cancel(false);
            }
        }
    }

    @PostConstruct
    void start() {
        scheduler = new ScheduledThreadPoolExecutor(1, threadFactory);
        scheduler.setRemoveOnCancelPolicy(true); // an answered wait leaves no deadline task behind
        scheduler.scheduleWithFixedDelay(() -> look(awaited()), LOOK_EVERY_MILLIS, LOOK_EVERY_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        // callers still waiting get their 202 (the rows stay in the outbox and are delivered later)
        waits.forEach(w -> w.end(Optional.empty()));
        scheduler.shutdownNow();
    }

    /**
     * Waits up to {@code timeoutMillis} for the answer to {@code replyTo}, holding no thread:
     * {@code answer} gets it, or empty when the wait ended first, once, on this class's thread.
     */
    public Wait await(UUID replyTo, long timeoutMillis, Consumer<Optional<StoredReplies.Reply>> answer) {
        Wait wait = new Wait(replyTo, answer);
        waits.add(wait);
        try {
            wait.deadline = scheduler.schedule(() -> wait.end(Optional.empty()), timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            wait.end(Optional.empty()); // the application is stopping: the caller gets its 202 now
            return wait;
        }
        if (wait.ended.get()) {
            wait.forget(); // answered before its deadline was set: take that back
        }
        lookSoon(Set.of(replyTo)); // the answer may have come before the wait began
        return wait;
    }

    /** Called by the dispatcher after it finished rows that carry reply_to: look for their answers now. */
    public void finished(Iterable<UUID> replyTos) {
        if (waits.isEmpty()) {
            return;
        }
        Set<UUID> ids = new HashSet<>();
        replyTos.forEach(ids::add);
        lookSoon(ids);
    }

    private void lookSoon(Set<UUID> ids) {
        soon.addAll(ids);
        // one look queued at a time, for all ids signalled meanwhile: the dispatcher's thread only adds to a set
        if (soonQueued.compareAndSet(false, true)) {
            try {
                scheduler.execute(this::lookAtSoon);
            } catch (RejectedExecutionException stopping) {
                soonQueued.set(false);
            }
        }
    }

    private void lookAtSoon() {
        soonQueued.set(false);
        Set<UUID> ids = new HashSet<>();
        for (Iterator<UUID> it = soon.iterator(); it.hasNext();) {
            ids.add(it.next());
            it.remove();
        }
        ids.retainAll(awaited()); // rows finished here that nobody on this node waits for
        look(ids);
    }

    private Set<UUID> awaited() {
        Set<UUID> ids = new HashSet<>();
        waits.forEach(w -> ids.add(w.replyTo));
        return ids;
    }

    /** One statement for every id; ends the waits whose answer is there. Never throws (the schedule would stop). */
    private void look(Set<UUID> ids) {
        if (ids.isEmpty()) {
            return;
        }
        try {
            Map<UUID, StoredReplies.Reply> found = stored.answered(ids);
            if (!found.isEmpty()) {
                for (Wait w : waits) {
                    StoredReplies.Reply reply = found.get(w.replyTo);
                    if (reply != null) {
                        w.end(Optional.of(reply));
                    }
                }
            }
            if (failing.compareAndSet(true, false)) {
                LOG.info("looking for invoke answers works again");
            }
        } catch (RuntimeException e) {
            // the deadlines still end every wait (202); a look every 100 ms must not log every time
            if (failing.compareAndSet(false, true)) {
                LOG.log(Level.WARNING,
                        "looking for invoke answers failed; waiting invokes answer 202 until it works again", e);
            }
        }
    }
}
