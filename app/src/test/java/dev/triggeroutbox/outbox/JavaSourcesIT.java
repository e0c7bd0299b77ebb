package dev.triggeroutbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Recorder;
import dev.triggeroutbox.testkit.Sql;
import dev.triggeroutbox.triggers.control.Triggers;
import dev.triggeroutbox.triggers.entity.Schedule;
import dev.triggeroutbox.triggers.entity.TargetType;
import dev.triggeroutbox.triggers.entity.Trigger;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Sources through the Java API inside the caller's own transaction (kv, docs, files), a handler
 * publishing from inside its delivery, and cron's missed-fire policies, on a real WildFly and
 * PostgreSQL with the CDI recording handler as receiver.
 */
@ExtendWith(ArquillianExtension.class)
class JavaSourcesIT {

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

    private static UserTransaction tx() throws Exception {
        return (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
    }

    private TriggerId recorderFor(SourceKind kind) throws Exception {
        UserTransaction tx = tx();
        tx.begin();
        TriggerId id = triggers.create(app, kind, TargetType.HANDLER, "recorder", null, null, null, true).id();
        tx.commit();
        return id;
    }

    @Test
    void kvDocsAndFilesEventsAreAtomicWithTheCallersDataAndDeliveredOncePerTrigger() throws Exception {
        Sql.update(
                "CREATE TABLE IF NOT EXISTS documents (id uuid PRIMARY KEY, app_id uuid NOT NULL, kind text NOT NULL)");
        List<SourceKind> kinds = List.of(SourceKind.KV, SourceKind.DOCS, SourceKind.FILES);
        for (SourceKind kind : kinds) {
            recorderFor(kind);
            recorderFor(kind);
        }
        List<UUID> written = new ArrayList<>();
        for (SourceKind kind : kinds) {
            // committed: the document and its event rows
            UserTransaction tx = tx();
            tx.begin();
            UUID doc = UUID.randomUUID();
            Sql.update("INSERT INTO documents (id, app_id, kind) VALUES (?, ?, ?)", doc, app.value(), kind.wire());
            List<OutboxWriter.FannedOut> rows = outbox.publish(app, kind, "{\"doc\": \"" + doc + "\"}", "it", null, 0,
                    null);
            tx.commit();
            assertEquals(2, rows.size(), kind + ": one row per trigger");
            rows.forEach(r -> written.add(r.id().value()));
            // rolled back: neither
            tx.begin();
            Sql.update("INSERT INTO documents (id, app_id, kind) VALUES (?, ?, ?)", UUID.randomUUID(), app.value(),
                    kind.wire());
            outbox.publish(app, kind, "{\"doc\": \"rolled back\"}", "it", null, 0, null);
            tx.rollback();
        }
        Eventually.until(WAIT, () -> written.stream().allMatch(id -> recorder.count(id) >= 1),
                () -> "not all delivered");
        for (UUID id : written) {
            assertEquals(1, recorder.count(id), "delivered once: " + id);
        }
        assertEquals(3, Sql.count("SELECT count(*) FROM documents WHERE app_id = ?", app.value()));
        Eventually.until(WAIT, () -> Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app.value()) == 0,
                () -> "rows left");
        assertEquals(6, Sql.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app.value()),
                "no row of a rolled-back transaction");
        for (SourceKind kind : kinds) {
            assertEquals(2, Sql.count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND source_kind = ?",
                    app.value(), kind.wire()));
        }
    }

    @Test
    void aHandlerPublishesOneLevelDeeperWithItsDeliveryAsParent() throws Exception {
        UserTransaction tx = tx();
        tx.begin();
        TriggerId publisher = triggers
                .create(app, SourceKind.KV, TargetType.HANDLER, "publisher", null, null, null, true).id();
        tx.commit();
        recorderFor(SourceKind.DOCS);
        OutboxId parent = outbox.enqueue(NewOutboxRow.to(app, SourceKind.KV, publisher, "{}"));
        Eventually.until(WAIT,
                () -> Sql.count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND source_kind = 'docs'",
                        app.value()) == 1,
                () -> "no docs row delivered");
        Object[] child = Sql.query("""
                SELECT outbox_id, trigger_depth, root_execution_id, parent_id FROM delivery_history
                WHERE app_id = ? AND source_kind = 'docs'""", app.value()).get(0);
        assertEquals(1, ((Number) child[1]).intValue());
        assertEquals(parent.value(), child[2], "same cascade");
        assertEquals(parent.value(), child[3], "its parent is the publishing delivery");
        var got = recorder.of((UUID) child[0]).get(0).delivery();
        assertEquals("docs", got.sourceKind());
        assertTrue(got.payload().contains("publisher"), got.payload());
    }

    /** A cron trigger whose next fire lies {@code missedFor} in the past, as after a cluster-wide outage. */
    private TriggerId cronMissedFor(Duration missedFor, Schedule.Misfire policy) throws Exception {
        UserTransaction tx = tx();
        tx.begin();
        Trigger t = triggers.create(app, SourceKind.CRON, TargetType.HANDLER, "recorder", null, null, null, false);
        triggers.schedule(t, Schedule.of("0 * * * * *", "UTC", policy), false);
        tx.commit();
        // the first minute boundary more than missedFor ago
        Sql.update(
                "UPDATE triggers SET next_fire_at = date_trunc('minute', now() - ?::interval), enabled = true WHERE id = ?",
                missedFor.toSeconds() + " seconds", t.id().value());
        return t.id();
    }

    private static Timestamp nextFireAt(TriggerId id) {
        return (Timestamp) Sql.query("SELECT next_fire_at FROM triggers WHERE id = ?", id.value()).get(0)[0];
    }

    /** The cron payloads of a trigger's rows, once all of them are delivered. */
    private List<String> firesOf(TriggerId id) {
        Eventually.until(WAIT, () -> nextFireAt(id).toInstant().isAfter(Instant.now().minusSeconds(1)),
                () -> "no pass");
        Eventually.until(WAIT, () -> Sql.count("SELECT count(*) FROM outbox WHERE trigger_id = ?", id.value()) == 0,
                () -> "rows left");
        List<String> payloads = new ArrayList<>();
        for (Object[] row : Sql.query("SELECT outbox_id FROM delivery_history WHERE trigger_id = ?", id.value())) {
            payloads.add(recorder.of((UUID) row[0]).get(0).delivery().payload().replace(" ", ""));
        }
        return payloads;
    }

    @Test
    void firesMissedWhileNoNodeRanAreFiredOnceTogether() throws Exception {
        TriggerId id = cronMissedFor(Duration.ofMinutes(10), Schedule.Misfire.FIRE_ONCE);
        List<String> fires = firesOf(id);
        // the minute boundaries of the last 10 minutes: all but the latest are missed (later than the
        // 60 s grace) and make one row together; the latest is on time and makes its own
        List<String> together = fires.stream().filter(p -> !p.contains("\"missedFires\":0")).toList();
        assertEquals(1, together.size(), fires.toString());
        assertTrue(together.get(0).matches(".*\"missedFires\":(9|10|11)[,}].*"), together.get(0));
        assertTrue(together.get(0).contains("\"firstMissedAt\""), together.get(0));
        assertTrue(fires.size() <= 2, "at most the latest fire on its own: " + fires);
        assertTrue(nextFireAt(id).toInstant().isAfter(Instant.now().minusSeconds(1)), "the schedule resumes from now");
    }

    @Test
    void firesMissedWhileNoNodeRanAreSkippedWhenAsked() throws Exception {
        TriggerId id = cronMissedFor(Duration.ofMinutes(10), Schedule.Misfire.SKIP);
        List<String> fires = firesOf(id);
        // only the latest minute boundary (within the 60 s grace) may fire; the missed ones do not
        assertTrue(fires.size() <= 1, fires.toString());
        fires.forEach(p -> assertTrue(p.contains("\"missedFires\":0"), p));
    }
}
