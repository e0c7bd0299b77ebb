package dev.triggeroutbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.control.UnknownTriggersException;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Recorder;
import dev.triggeroutbox.testkit.Sql;
import dev.triggeroutbox.triggers.control.Triggers;
import dev.triggeroutbox.triggers.entity.TargetType;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code Outbox.publishAll} and {@code Outbox.enqueueAll} inside the caller's own JTA transaction, with
 * the caller's own data beside them: a rolled-back batch leaves neither, a committed one is delivered
 * once per row, and a batch with a foreign trigger marks the caller's transaction for rollback.
 */
@ExtendWith(ArquillianExtension.class)
class BatchJavaApiIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @Inject
    Outbox outbox;

    @Inject
    Triggers triggers;

    @Inject
    Recorder recorder;

    private final AppId app = AppId.random();

    @BeforeEach
    void ordersTable() {
        Sql.update("CREATE TABLE IF NOT EXISTS batch_orders (id uuid PRIMARY KEY, app_id uuid NOT NULL)");
    }

    private static UserTransaction tx() throws Exception {
        return (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
    }

    private TriggerId recorderFor(AppId inApp, SourceKind kind) throws Exception {
        UserTransaction tx = tx();
        tx.begin();
        TriggerId id = triggers.create(inApp, kind, TargetType.HANDLER, "recorder", null, null, null, true).id();
        tx.commit();
        return id;
    }

    private static long rowsOf(AppId app) {
        return Sql.count(
                "SELECT (SELECT count(*) FROM outbox WHERE app_id = ?) + (SELECT count(*) FROM delivery_history WHERE app_id = ?)",
                app.value(), app.value());
    }

    private static void ownData(AppId app) {
        Sql.update("INSERT INTO batch_orders (id, app_id) VALUES (?, ?)", UUID.randomUUID(), app.value());
    }

    @Test
    void publishAllIsAtomicWithTheCallersDataAndEveryRowIsDeliveredOnce() throws Exception {
        recorderFor(app, SourceKind.KV);
        recorderFor(app, SourceKind.KV);
        recorderFor(app, SourceKind.FILES);
        List<NewEvent> events = List.of(NewEvent.of(SourceKind.KV, "{\"n\":0}"),
                NewEvent.of(SourceKind.DOCS, "{\"n\":1}"),
                new NewEvent(SourceKind.FILES, "{\"n\":2}", ExecutionId.random(), 3, null));

        UserTransaction tx = tx();
        tx.begin();
        ownData(app);
        List<OutboxWriter.Written> undone = outbox.publishAll(app, events, "it");
        assertEquals(3, undone.size());
        tx.rollback();
        assertEquals(0, rowsOf(app), "a rolled-back batch leaves no row");
        assertEquals(0, Sql.count("SELECT count(*) FROM batch_orders WHERE app_id = ?", app.value()));

        tx.begin();
        ownData(app);
        List<OutboxWriter.Written> rows = outbox.publishAll(app, events, "it");
        tx.commit();
        assertEquals(List.of(0, 0, 2), rows.stream().map(OutboxWriter.Written::event).toList());
        Eventually.until(WAIT, () -> rows.stream().allMatch(r -> recorder.count(r.id().value()) >= 1),
                () -> "not all delivered");
        for (OutboxWriter.Written r : rows) {
            assertEquals(1, recorder.count(r.id().value()), "delivered once: " + r);
        }
        Recorder.Received deep = recorder.of(rows.get(2).id().value()).get(0);
        assertEquals(3, deep.delivery().triggerDepth());
        assertEquals(events.get(2).root().value(), deep.delivery().rootExecutionId());
        assertEquals(1, Sql.count("SELECT count(*) FROM batch_orders WHERE app_id = ?", app.value()));
    }

    @Test
    void enqueueAllWithAForeignTriggerRollsTheCallerBackAndRollbackWritesNothing() throws Exception {
        TriggerId own = recorderFor(app, SourceKind.KV);
        TriggerId foreign = recorderFor(AppId.random(), SourceKind.KV);
        List<NewOutboxRow> rows = List.of(NewOutboxRow.to(app, SourceKind.KV, own, "{}"),
                NewOutboxRow.to(app, SourceKind.KV, foreign, "{}"), NewOutboxRow.to(app, SourceKind.KV, own, "{}"));

        UserTransaction tx = tx();
        tx.begin();
        ownData(app);
        UnknownTriggersException refused = assertThrows(UnknownTriggersException.class, () -> outbox.enqueueAll(rows));
        assertEquals(List.of(1), refused.rows());
        assertEquals(Status.STATUS_MARKED_ROLLBACK, tx.getStatus(),
                "the caller's transaction cannot commit without its rows");
        tx.rollback();
        assertEquals(0, rowsOf(app));
        assertEquals(0, Sql.count("SELECT count(*) FROM batch_orders WHERE app_id = ?", app.value()));

        tx.begin();
        List<OutboxId> ids = outbox.enqueueAll(List.of(rows.get(0), rows.get(2).withMaxAttempts(2)));
        tx.rollback();
        assertEquals(2, ids.size());
        assertEquals(0, rowsOf(app), "a rolled-back enqueueAll leaves no row");

        List<OutboxId> committed = outbox.enqueueAll(List.of(rows.get(0), rows.get(2)));
        Eventually.until(WAIT, () -> committed.stream().allMatch(id -> recorder.count(id.value()) == 1),
                () -> "not delivered");
        assertEquals(2, rowsOf(app));
    }

    @Test
    void anEmptyOrOversizeBatchIsRefusedBeforeAnythingIsWritten() {
        assertThrows(IllegalArgumentException.class, () -> outbox.publishAll(app, List.of(), "it"));
        List<NewEvent> tooMany = Collections.nCopies(1001, NewEvent.of(SourceKind.KV, "{}"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> outbox.publishAll(app, tooMany, "it"));
        assertTrue(e.getMessage().contains("outbox.max-batch-events"), e.getMessage());
        assertEquals(0, rowsOf(app));
    }
}
