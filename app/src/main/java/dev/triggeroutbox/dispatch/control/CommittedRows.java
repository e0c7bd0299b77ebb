package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.outbox.entity.RowsCommitted;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What the dispatcher does when a transaction on this node committed rows ({@link RowsCommitted}): counts them
 * (metrics), wakes this node's drain loop, and has the {@link CommitNotifier} tell every node's
 * {@link CommitListener} through PostgreSQL, so that no row waits for the next poll.
 */
@ApplicationScoped
public class CommittedRows {

    @Inject
    DrainLoop drainLoop;

    @Inject
    DispatchCounters counters;

    @Inject
    CommitNotifier notifier;

    /** A commit that wrote rows wakes this node's dispatcher directly; false leaves it to the notify or the poll. */
    @Inject
    @ConfigProperty(name = "outbox.dispatch.wake-on-commit", defaultValue = "true")
    boolean wakeOnCommit;

    void committed(@Observes RowsCommitted rows) {
        rows.enqueued().forEach(counters::enqueued);
        if (wakeOnCommit) {
            drainLoop.wake();
        }
        notifier.committed();
    }
}
