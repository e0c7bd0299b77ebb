package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.dispatch.control.DrainLoop;
import dev.triggeroutbox.outbox.entity.SourceKind;
import java.util.EnumMap;
import java.util.Map;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Wakes this node's dispatcher when a transaction that enqueued commits, so a row does not wait
 * for the next poll, and counts the rows it wrote (metrics). Registered once per transaction
 * however many rows it writes; a rollback wakes and counts nothing. {@code outbox.dispatch.wake-on-commit=false} turns it off, so rows wait for the
 * poll timer (the benchmark measures the latency both ways).
 */
@ApplicationScoped
public class CommitWakeup {

    private static final Object KEY = new Object();

    @Resource
    TransactionSynchronizationRegistry registry;

    @Inject
    DrainLoop drainLoop;

    @Inject
    DispatchCounters counters;

    @Inject
    @ConfigProperty(name = "outbox.dispatch.wake-on-commit", defaultValue = "true")
    boolean wakeOnCommit;

    /**
     * Call after writing {@code rows} rows of {@code kind} in the current transaction (or after an
     * auto-committed write): when it commits they are counted, and the dispatcher is woken.
     */
    public void written(SourceKind kind, int rows) {
        if (rows == 0) {
            return;
        }
        Map<SourceKind, Integer> pending = transactionCounts();
        if (pending == null) {
            committed(Map.of(kind, rows));
        } else {
            pending.merge(kind, rows, Integer::sum);
        }
    }

    /**
     * Call after putting rows back into the outbox (a dead-letter replay): the dispatcher is woken
     * when the transaction commits; nothing is counted as enqueued.
     */
    public void revived(int rows) {
        if (rows > 0 && transactionCounts() == null) {
            committed(Map.of());
        }
    }

    /**
     * This transaction's counts, acted on when it commits (registered on first use); null without a
     * transaction, when the write has committed already.
     */
    private Map<SourceKind, Integer> transactionCounts() {
        if (registry.getTransactionKey() == null) {
            return null;
        }
        @SuppressWarnings("unchecked")
        Map<SourceKind, Integer> pending = (Map<SourceKind, Integer>) registry.getResource(KEY);
        if (pending == null) {
            Map<SourceKind, Integer> counts = new EnumMap<>(SourceKind.class);
            pending = counts;
            registry.putResource(KEY, counts);
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // nothing to do before
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        committed(counts);
                    }
                }
            });
        }
        return pending;
    }

    private void committed(Map<SourceKind, Integer> counts) {
        counts.forEach(counters::enqueued);
        if (wakeOnCommit) {
            drainLoop.wake();
        }
    }
}
