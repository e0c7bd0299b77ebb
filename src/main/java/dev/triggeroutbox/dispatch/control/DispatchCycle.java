package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.dispatch.entity.BatchOutcome;
import dev.triggeroutbox.dispatch.entity.ClaimedRow;
import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.replies.control.Replies;
import dev.triggeroutbox.targets.control.Targets;
import dev.triggeroutbox.triggers.control.Triggers;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One turn of the dispatcher: claim a batch (one short transaction), start every delivery while
 * holding no transaction and no connection, and when the last one has ended, finish the batch (one
 * short transaction). Deliveries in flight on this node are bounded by {@code outbox.dispatch.concurrency}
 * permits; a claim takes no more rows than there are free permits, so a slow target holds its own
 * permits and never stalls the rows behind it. Any node, and any number of threads, may run cycles.
 */
@ApplicationScoped
public class DispatchCycle {

    private static final Logger LOG = Logger.getLogger(DispatchCycle.class.getName());

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
    Triggers triggers;

    @Inject
    DispatchSettings settings;

    @Inject
    DispatchCounters counters;

    @Inject
    Replies replies;

    @Inject
    OutboxLimits limits;

    @Inject
    DrainLoop drainLoop;

    /** Where a node's last full claim ended in the due index, and when a claim last scanned it whole. */
    private record Cursor(OffsetDateTime dueAt, long fullScanNanos) {
    }

    private static final long WHOLE_SCAN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int FINISHERS = 2;

    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
    private Semaphore permits;

    @Resource
    ManagedThreadFactory threadFactory;

    private ExecutorService finisher;

    @PostConstruct
    void init() {
        permits = new Semaphore(settings.concurrency());
        finisher = Executors.newFixedThreadPool(FINISHERS, threadFactory);
    }

    @PreDestroy
    void close() {
        finisher.shutdown();
    }

    /** Deliveries running on this node now (each holds a permit until it ends); for the node heartbeat. */
    public int inFlight() {
        return Math.max(0, settings.concurrency() - permits.availablePermits());
    }

    /** Runs one cycle as this node. */
    public Claimed runOnce() throws SQLException, InterruptedException {
        return runOnce(settings.nodeName());
    }

    /**
     * Runs one cycle as the named node (tests use other names to act as more nodes). Waits for at
     * least one free delivery permit, claims, starts the deliveries and returns; the batch is
     * finished asynchronously when its deliveries end.
     */
    public Claimed runOnce(String node) throws SQLException, InterruptedException {
        permits.acquire();
        int limit = 1 + drainPermits(settings.batchSize() - 1);
        ClaimToken token = ClaimToken.random();
        Cursor cursor = cursors.get(node);
        List<ClaimedRow> rows;
        try {
            rows = claims.claim(node, token, limit, settings.leaseMillis(), cursor == null ? null : cursor.dueAt());
        } catch (SQLException | RuntimeException e) {
            permits.release(limit);
            throw e;
        }
        permits.release(limit - rows.size());
        advance(node, cursor, rows, limit);
        if (!rows.isEmpty()) {
            deliver(node, token, rows);
        }
        return new Claimed(rows.size(), limit);
    }

    /**
     * After a full claim the next one starts where it ended (more is due right there). A claim that
     * was not full starts from the start again, and so does the first claim {@link #WHOLE_SCAN_EVERY_NANOS}
     * after the last whole scan: under a backlog that never ends, rows due earlier than the cursor (a
     * lease recovered, a transaction that committed late) wait at most that long.
     */
    private void advance(String node, Cursor cursor, List<ClaimedRow> rows, int limit) {
        long now = System.nanoTime();
        boolean stale = cursor != null && now - cursor.fullScanNanos() > WHOLE_SCAN_EVERY_NANOS;
        if (rows.size() < limit || stale) {
            cursors.remove(node);
            return;
        }
        OffsetDateTime last = rows.stream().map(ClaimedRow::dueAt).max(OffsetDateTime::compareTo).orElseThrow();
        cursors.put(node, new Cursor(last, cursor == null ? now : cursor.fullScanNanos()));
    }

    private int drainPermits(int atMost) {
        int taken = 0;
        while (taken < atMost && permits.tryAcquire()) {
            taken++;
        }
        return taken;
    }

    /** Starts every delivery of the batch; each holds one permit until it ends or times out. */
    private void deliver(String node, ClaimToken token, List<ClaimedRow> rows) {
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] settled = new CompletableFuture[rows.size()];
        BatchOutcome outcome = new BatchOutcome();
        for (int i = 0; i < rows.size(); i++) {
            ClaimedRow row = rows.get(i);
            int maxAttempts = row.maxAttempts(settings.maxAttempts());
            long started = System.nanoTime();
            settled[i] = start(row, maxAttempts)
                    .handle((result, failure) -> failure == null ? result : asFailure(failure))
                    .thenAccept(result -> {
                        permits.release();
                        counters.deliveryTook(System.nanoTime() - started);
                        synchronized (outcome) {
                            settle(outcome, row, maxAttempts, result);
                        }
                    });
        }
        List<UUID> replyTos = rows.stream().map(ClaimedRow::replyTo).filter(Objects::nonNull).map(OutboxId::value).toList();
        // finishing has threads of its own: queued behind slow deliveries it could miss its lease
        CompletableFuture.allOf(settled).whenCompleteAsync((ignored, e) -> finish(node, token, outcome, replyTos), finisher);
    }

    private CompletableFuture<DeliveryResult> start(ClaimedRow row, int maxAttempts) {
        String refusal = refusal(row, maxAttempts, limits.maxTriggerDepth());
        if (refusal != null) {
            return CompletableFuture.completedFuture(DeliveryResult.rejected(refusal));
        }
        CompletableFuture<DeliveryResult> result;
        try {
            result = targets.deliver(row, maxAttempts, Duration.ofMillis(settings.deliveryTimeoutMillis()));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(DeliveryResult.failed("delivery could not start: " + e.getMessage()));
        }
        // the last resort: whatever a target does, the batch finishes while its lease still holds
        result.orTimeout(settings.finishWithinMillis(), TimeUnit.MILLISECONDS);
        return result;
    }

    private DeliveryResult asFailure(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof TimeoutException) {
            return DeliveryResult.failed("delivery timed out after " + settings.deliveryTimeoutMillis() + " ms");
        }
        if (cause instanceof java.util.concurrent.CancellationException) {
            return DeliveryResult.failed("delivery was cancelled");
        }
        return DeliveryResult.failed("delivery failed: " + cause.getMessage());
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
        if (!row.trigger().enabled()) {
            return "trigger " + row.triggerId() + " is disabled";
        }
        return null;
    }

    private void settle(BatchOutcome outcome, ClaimedRow row, int maxAttempts, DeliveryResult result) {
        if (result instanceof DeliveryResult.Delivered d) {
            outcome.delivered(row.id());
            if (row.replyTo() != null) {
                outcome.reply(row.id(), d.reply());
            }
        } else if (result instanceof DeliveryResult.Rejected r) {
            outcome.dead(row.id(), r.error());
            if (r.disableTrigger()) {
                outcome.disable(row.triggerId());
            }
        } else if (result instanceof DeliveryResult.Failed f) {
            if (row.attemptCount() >= maxAttempts) {
                outcome.dead(row.id(), f.error());
            } else {
                long delay = settings.retryPolicy().delayMillis(row.attemptCount(), f.retryAfter());
                outcome.retry(row.id(), delay, f.error());
            }
        }
    }

    private void finish(String node, ClaimToken token, BatchOutcome outcome, List<UUID> replyTos) {
        try {
            outcome.disabledTriggers().forEach(triggers::disable);
            Claims.Finished finished = claims.finish(node, token, outcome);
            counters.record(finished);
            if (!replyTos.isEmpty()) {
                replies.finished(replyTos);
            }
            if (finished.dead() > 0) {
                drainLoop.wake(); // dead letters may have told dead_letter triggers
            }
            if (finished.fenced() > 0) {
                LOG.warning(() -> finished.fenced() + " late result(s) of node " + node
                        + " discarded: the lease had expired or the row was claimed again");
            }
        } catch (Exception e) {
            // the rows keep their claim until the lease expires, then another claim retries them
            LOG.log(Level.WARNING, "finishing a batch of " + outcome.size() + " row(s) failed: " + e.getMessage(), e);
        }
    }
}
