package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.RowsCommitted;
import dev.triggeroutbox.outbox.entity.SourceKind;
import java.util.EnumMap;
import java.util.Map;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Tells the dispatcher of rows this node committed, so a row does not wait for the next poll: after a
 * transaction that wrote rows commits, it fires one {@link RowsCommitted} event with what the transaction wrote,
 * however many writes it made; a rollback fires nothing. An auto-committed write fires at once.
 */
@ApplicationScoped
public class CommitWakeup {

    private static final Object KEY = new Object();

    @Resource
    TransactionSynchronizationRegistry registry;

    @Inject
    Event<RowsCommitted> committed;

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
        committed.fire(new RowsCommitted(counts));
    }
}
