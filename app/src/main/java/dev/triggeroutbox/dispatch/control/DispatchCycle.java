package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.targets.control.Targets;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One turn of the dispatcher: claim due rows (one short transaction) within this node's room, and start
 * every delivery while holding no transaction and no connection; each row is finished by the
 * {@link Finisher} in the first window after its own delivery ends, never waiting for the rest of its
 * claim. Rows claimed and not yet finished on this node are bounded by {@code outbox.dispatch.concurrency}
 * permits (a claim takes no more rows than there are free permits), and deliveries under way are shared between
 * apps and triggers ({@code outbox.dispatch.app-max-in-flight}, {@code outbox.dispatch.trigger-max-in-flight}): an
 * app or trigger at its share is passed over, so one slow target holds its own share and never stalls the
 * others. Any node, and any number of threads, may run cycles.
 */
@ApplicationScoped
public class DispatchCycle {

    /** What a cycle claimed, and how many it could have: a full claim means more may be due. */
    public record Claimed(int rows, int limit) {
        public boolean full() {
            return rows > 0 && rows == limit;
        }
    }

    @Inject
    Claims claims;

    @Inject
    Targets targets;

    @Inject
    DispatchSettings settings;

    @Inject
    DispatchCounters counters;

    @Inject
    OutboxLimits limits;

    @Inject
    Finisher finisher;

    @Resource
    ManagedThreadFactory threadFactory;

    /**
     * Where a node's last full claim left off in the due index, when a claim last scanned it whole, and
     * what that claim passed over (its apps and triggers at their share).
     */
    private record Cursor(OffsetDateTime dueAt, long fullScanNanos, Set<UUID> passedOver) {
    }

    private static final long WHOLE_SCAN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** While every permit is taken, how often a waiting cycle looks whether the node is stopping. */
    private static final long STOPPING_CHECK_MILLIS = 100;

    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
    private final InFlight inFlight = new InFlight();
    private Semaphore permits;
    /** Claims with deliveries still running, so that a stopping node can cut short what outlives its grace. */
    private final Set<Batch> running = ConcurrentHashMap.newKeySet();
    /** Runs each claim's deadline ({@link Batch}): one timer per claim, not one per row. */
    private ScheduledThreadPoolExecutor deadlines;
    /** The node is stopping: nothing more is claimed, and rows claimed from now on are given back unstarted. */
    private volatile boolean stopping;

    @PostConstruct
    void init() {
        permits = new Semaphore(settings.concurrency());
        finisher.whenFinished(permits::release); // once per finishing window, for all of its rows
        deadlines = new ScheduledThreadPoolExecutor(1, threadFactory);
        deadlines.setRemoveOnCancelPolicy(true); // most claims end long before their deadline
    }

    @PreDestroy
    void close() {
        deadlines.shutdownNow();
    }

    /** Rows in flight on this node now (each holds a permit from its claim until it is finished); for the node heartbeat. */
    public int inFlight() {
        return Math.max(0, settings.concurrency() - permits.availablePermits());
    }

    /** Runs one cycle as this node. */
    public Claimed runOnce() throws SQLException, InterruptedException {
        return runOnce(settings.nodeName());
    }

    /**
     * Runs one cycle as the named node (tests use other names to act as more nodes). Waits for at
     * least one free delivery permit, claims, starts the deliveries and returns; each row is finished
     * when its own delivery ends.
     */
    public Claimed runOnce(String node) throws SQLException, InterruptedException {
        if (!firstPermit()) {
            return new Claimed(0, 0);
        }
        int limit = 1 + drainPermits(settings.batchSize() - 1);
        ClaimToken token = ClaimToken.random();
        Claims.Room room = inFlight.room(settings.appShare(), settings.triggerShare(), limit, targets.rooms());
        Set<UUID> passedOver = passedOver(room);
        Cursor cursor = cursors.get(node);
        if (cursor != null && !passedOver.containsAll(cursor.passedOver())) {
            cursor = null; // an app or trigger passed over then may have rows before the cursor now
        }
        Claims.Claim claim;
        try {
            claim = claims.claim(node, token, limit, settings.leaseMillis(), cursor == null ? null : cursor.dueAt(),
                    room);
        } catch (SQLException | RuntimeException e) {
            permits.release(limit);
            throw e;
        }
        List<ClaimedRow> rows = claim.rows();
        counters.claimed(rows.size());
        permits.release(limit - rows.size());
        advance(node, cursor, claim, passedOver);
        if (!rows.isEmpty()) {
            deliver(node, token, rows);
        }
        return new Claimed(rows.size(), limit);
    }

    private static Set<UUID> passedOver(Claims.Room room) {
        Set<UUID> ids = new HashSet<>(room.fullApps());
        ids.addAll(room.fullTriggers());
        return ids;
    }

    /**
     * After a claim whose window was full the next one starts where it left off (more is due right
     * there): at the earliest row it left in the window, or at the last window row it took. Otherwise the next
     * claim starts from the start again, and so does the first claim {@link #WHOLE_SCAN_EVERY_NANOS} after
     * the last whole scan: under a backlog that never ends, rows due earlier than the cursor (a lease
     * recovered, a transaction that committed late) wait at most that long.
     */
    private void advance(String node, Cursor cursor, Claims.Claim claim, Set<UUID> passedOver) {
        long now = System.nanoTime();
        boolean stale = cursor != null && now - cursor.fullScanNanos() > WHOLE_SCAN_EVERY_NANOS;
        if (!claim.windowFull() || claim.rows().isEmpty() || stale) {
            cursors.remove(node);
            return;
        }
        // a full window leaves a row or gives one: one of the two is there
        OffsetDateTime from = claim.leftFrom() != null ? claim.leftFrom() : claim.takenTo();
        cursors.put(node, new Cursor(from, cursor == null ? now : cursor.fullScanNanos(), passedOver));
    }

    private int drainPermits(int atMost) {
        int taken = 0;
        while (taken < atMost && permits.tryAcquire()) {
            taken++;
        }
        return taken;
    }

    /** Starts every delivery of the claim; each holds one permit, and its share, until it ends or times out. */
    private void deliver(String node, ClaimToken token, List<ClaimedRow> claimed) {
        long claimedAt = System.nanoTime();
        // a delivery that starts later than this could not end within the lease: it is given back unstarted
        long startBy = claimedAt + TimeUnit.MILLISECONDS
                .toNanos(Math.max(0, settings.finishWithinMillis() - settings.deliveryTimeoutMillis()));
        Batch batch = new Batch(claimed.size());
        for (ClaimedRow claimedRow : claimed) {
            ClaimedRow row = claimedRow.startingBy(startBy);
            int maxAttempts = row.maxAttempts(settings.maxAttempts());
            inFlight.started(row);
            batch.add(start(row, maxAttempts))
                    .handle((result, failure) -> failure == null ? result : asFailure(failure))
                    .thenAccept(result -> {
                        counters.deliveryTook(System.nanoTime() - claimedAt);
                        batch.ended();
                        // its share is the app's room at its target, free again once the delivery ended; the row holds
                        // its permit until it is finished: a finisher that falls behind slows the claims down instead
                        // of letting claimed rows pile up
                        inFlight.ended(row);
                        finisher.ended(node, token, row, maxAttempts, result);
                    });
        }
    }

    /**
     * The deliveries of one claim: whatever a target does, each is ended (as timed out) once the claim's rows could
     * no longer be finished within their lease, by one timer for the whole claim.
     */
    private final class Batch {
        private final List<CompletableFuture<DeliveryResult>> deliveries;
        private final AtomicInteger left;
        private final ScheduledFuture<?> deadline;

        Batch(int rows) {
            deliveries = new java.util.ArrayList<>(rows);
            left = new AtomicInteger(rows);
            running.add(this);
            deadline = deadlines.schedule(() -> end(new TimeoutException()), settings.finishWithinMillis(),
                    TimeUnit.MILLISECONDS);
        }

        CompletableFuture<DeliveryResult> add(CompletableFuture<DeliveryResult> delivery) {
            synchronized (deliveries) {
                deliveries.add(delivery);
            }
            return delivery;
        }

        void ended() {
            if (left.decrementAndGet() == 0) {
                deadline.cancel(false);
                running.remove(this);
            }
        }

        /** Ends every delivery of the claim still running with {@code why}; how many it ended. */
        int end(Throwable why) {
            List<CompletableFuture<DeliveryResult>> all;
            synchronized (deliveries) {
                all = List.copyOf(deliveries);
            }
            int ended = 0;
            for (CompletableFuture<DeliveryResult> d : all) {
                if (d.completeExceptionally(why)) {
                    ended++;
                }
            }
            return ended;
        }
    }

    private CompletableFuture<DeliveryResult> start(ClaimedRow row, int maxAttempts) {
        if (stopping) {
            return CompletableFuture.completedFuture(new DeliveryResult.NotStarted("the node is stopping"));
        }
        String refusal = refusal(row, maxAttempts, limits.maxTriggerDepth());
        if (refusal != null) {
            return CompletableFuture.completedFuture(DeliveryResult.rejected(refusal));
        }
        try {
            return targets.deliver(row, maxAttempts, Duration.ofMillis(settings.deliveryTimeoutMillis()));
        } catch (RuntimeException e) {
            return CompletableFuture
                    .completedFuture(DeliveryResult.failed("delivery could not start: " + e.getMessage()));
        }
    }

    private DeliveryResult asFailure(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
        if (cause instanceof TimeoutException) {
            return DeliveryResult.failed("delivery timed out after " + settings.deliveryTimeoutMillis() + " ms");
        }
        if (cause instanceof java.util.concurrent.CancellationException) {
            return DeliveryResult.failed(cause.getMessage() == null ? "delivery was cancelled" : cause.getMessage());
        }
        return DeliveryResult.failed("delivery failed: " + cause.getMessage());
    }

    // the shutdown path (ShutdownDrain): stop claiming, then cut short what outlives the grace

    /** Waits for a free permit; false once the node is stopping (checked while every permit is taken, too). */
    private boolean firstPermit() throws InterruptedException {
        while (!permits.tryAcquire(STOPPING_CHECK_MILLIS, TimeUnit.MILLISECONDS)) {
            if (stopping) {
                return false;
            }
        }
        if (stopping) {
            permits.release();
            return false;
        }
        return true;
    }

    /** From now on this node claims nothing, and a claim that was under way gives its rows back unstarted. */
    public void stopClaiming() {
        stopping = true;
    }

    /**
     * Ends every delivery still running as failed with {@code reason} (a handler is interrupted, an HTTP
     * exchange aborted); each is finished as a failed attempt, rescheduled by the retry policy. How many.
     */
    public int cutShort(String reason) {
        int cut = 0;
        for (Batch batch : List.copyOf(running)) {
            cut += batch.end(new java.util.concurrent.CancellationException(reason));
        }
        return cut;
    }

    /** Why a claimed row must not be delivered at all, or null when it may be. */
    private static String refusal(ClaimedRow row, int maxAttempts, int maxDepth) {
        if (SourceKind.fromWire(row.sourceKind()).isEmpty()) {
            return "unknown source kind '" + row.sourceKind() + "' (known: " + SourceKind.wireNames() + ")";
        }
        if (row.triggerDepth() > maxDepth) {
            return "trigger depth " + row.triggerDepth() + " exceeds outbox.max-trigger-depth " + maxDepth
                    + ": the cascade stops here";
        }
        if (row.attemptCount() > maxAttempts) {
            // every earlier claim ended without a result (its node crashed or stalled past the lease)
            return "no result after " + maxAttempts + " attempt(s): each claim's lease expired";
        }
        if (row.triggerId() == null) {
            return "row names no trigger";
        }
        if (row.trigger() == null) {
            return "trigger " + row.triggerId() + " does not exist";
        }
        return null;
    }
}
