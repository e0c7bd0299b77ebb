package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.dispatch.control.CommitListener;
import dev.triggeroutbox.dispatch.control.CommitNotifier;
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
 * Wakes the dispatchers when a transaction that enqueued commits, so a row does not wait for the next poll,
 * and counts the rows it wrote (metrics). Two wake-ups, both once per transaction however many rows it
 * writes, neither on a rollback:
 * <ul>
 * <li>this node's drain loop, directly, after the commit ({@code outbox.dispatch.wake-on-commit});
 * <li>every node's, through PostgreSQL: after the commit the {@link CommitNotifier} sends one {@code NOTIFY}
 * for all the commits since its last one, which the nodes' {@link CommitListener}s hear
 * ({@code outbox.dispatch.notify}).
 * </ul>
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

    @Inject
    CommitNotifier notifier;

    /** Per transaction: what it wrote. */
    private static final class Pending {
        final Map<SourceKind, Integer> counts = new EnumMap<>(SourceKind.class);
    }

    /**
     * Call after writing {@code rows} rows of {@code kind} in the current transaction (or after an
     * auto-committed write): when it commits they are counted, and the dispatcher is woken.
     */
    public void written(SourceKind kind, int rows) {
        if (rows == 0) {
            return;
        }
        Pending pending = transactionPending();
        if (pending == null) {
            committed(Map.of(kind, rows));
        } else {
            pending.counts.merge(kind, rows, Integer::sum);
        }
    }

    /**
     * Call after putting rows back into the outbox (a dead-letter replay): the dispatcher is woken
     * when the transaction commits; nothing is counted as enqueued.
     */
    public void revived(int rows) {
        if (rows > 0 && transactionPending() == null) {
            committed(Map.of());
        }
    }

    /**
     * This transaction's state, acted on when it commits (registered on first use, by a write that wrote
     * rows); null without a transaction, when the write has committed already.
     */
    private Pending transactionPending() {
        if (registry.getTransactionKey() == null) {
            return null;
        }
        Pending pending = (Pending) registry.getResource(KEY);
        if (pending == null) {
            Pending created = new Pending();
            pending = created;
            registry.putResource(KEY, created);
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // nothing to do before
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        committed(created.counts);
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
        notifier.committed();
    }
}
