package dev.triggeroutbox.bench.server;

import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.outbox.entity.SourceKind;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import java.sql.SQLException;
import java.util.List;

/**
 * A producer as application code writes one: its own JTA transaction, the outbox's Java API inside it.
 * Optionally notes the instant the transaction committed (for commit → delivery-start latency).
 */
@ApplicationScoped
public class BenchProducer {

    @Inject
    Outbox outbox;

    @Resource
    TransactionSynchronizationRegistry registry;

    /** Publishes one event of kind {@code kv} in a transaction of its own; returns the rows written. */
    @Transactional(value = Transactional.TxType.REQUIRES_NEW, rollbackOn = Exception.class)
    public int publish(AppId app, String payload, Runnable afterCommit) throws SQLException {
        if (afterCommit != null) {
            // registered before the outbox registers its wake-up, so it runs as close to the commit as it can
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // only the outcome matters
                }

                @Override
                public void afterCompletion(int status) {
                    if (status == Status.STATUS_COMMITTED) {
                        afterCommit.run();
                    }
                }
            });
        }
        return outbox.publish(app, SourceKind.KV, payload, "bench", null, 0, null).size();
    }

    /** Publishes the events with one {@code publishAll} in a transaction of its own; returns the rows written. */
    @Transactional(value = Transactional.TxType.REQUIRES_NEW, rollbackOn = Exception.class)
    public int publishAll(AppId app, List<NewEvent> events) throws SQLException {
        return outbox.publishAll(app, events, "bench").size();
    }
}
