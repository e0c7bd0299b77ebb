package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.dispatch.control.DrainLoop;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Wakes this node's dispatcher when a transaction that enqueued commits, so a row does not wait
 * for the next poll. Registered once per transaction however many rows it writes; a rollback
 * wakes nothing. {@code outbox.dispatch.wake-on-commit=false} turns it off, so rows wait for the
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
    @ConfigProperty(name = "outbox.dispatch.wake-on-commit", defaultValue = "true")
    boolean wakeOnCommit;

    /** Call after writing rows in the current transaction (or after an auto-committed write). */
    public void afterCommit() {
        if (!wakeOnCommit) {
            return;
        }
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
