package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.dispatch.control.DrainLoop;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Wakes this node's dispatcher when a transaction that enqueued commits, so a row does not wait
 * for the next poll. Registered once per transaction however many rows it writes; a rollback
 * wakes nothing.
 */
@ApplicationScoped
public class CommitWakeup {

    private static final Object KEY = new Object();

    @Resource
    TransactionSynchronizationRegistry registry;

    @Inject
    DrainLoop drainLoop;

    /** Call after writing rows in the current transaction (or after an auto-committed write). */
    public void afterCommit() {
        if (registry.getTransactionKey() == null) {
            drainLoop.wake();
            return;
        }
        if (registry.getResource(KEY) == null) {
            registry.putResource(KEY, Boolean.TRUE);
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // nothing to do before
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        drainLoop.wake();
                    }
                }
            });
        }
    }
}
