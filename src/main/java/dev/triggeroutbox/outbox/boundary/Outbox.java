package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The Java API of the outbox for code in this deployment: inject it and call it inside your own
 * transaction. Rows are written on your transaction, so they exist if and only if it commits; the
 * commit wakes the dispatcher. Without a transaction, each call runs in one of its own.
 */
@ApplicationScoped
@Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
public class Outbox {

    @Inject
    OutboxWriter writer;

    @Inject
    CommitWakeup wakeup;

    /** Enqueues one row. */
    public OutboxId enqueue(NewOutboxRow row) throws SQLException {
        OutboxId id = writer.insert(row);
        wakeup.afterCommit();
        return id;
    }

    /**
     * Publishes an event: one row per enabled trigger of {@code (app, kind)}. The rows share one root
     * execution id (the given one, or a new one).
     */
    public List<OutboxWriter.FannedOut> publish(AppId app, SourceKind kind, String payload, String originPrincipal,
            ExecutionId root, int depth, OffsetDateTime deliverAt) throws SQLException {
        List<OutboxWriter.FannedOut> rows = writer.fanOut(app, kind, payload, originPrincipal,
                root == null ? ExecutionId.random() : root, depth, deliverAt);
        if (!rows.isEmpty()) {
            wakeup.afterCommit();
        }
        return rows;
    }
}
