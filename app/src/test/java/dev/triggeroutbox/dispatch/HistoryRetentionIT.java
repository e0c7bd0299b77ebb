package dev.triggeroutbox.dispatch;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.triggeroutbox.client.OutboxApi;
import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.client.ProblemException;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The partitioned delivery history on the running server: the dispatcher's housekeeping drops a partition
 * past retention whole, and what the other partitions keep stays answerable through {@code GET /outbox/{id}}
 * and the lineage, the newest outcome of a row replayed from the dead letters included. Called through the typed
 * client.
 */
@ExtendWith(ArquillianExtension.class)
class HistoryRetentionIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /**
     * The start of today (UTC), as the partitions count days: rows placed from it fall in the partition meant at
     * any time of day ("now() - 10 days + 1 hour" fell in the next day's range after 23:00 UTC).
     */
    private static final String TODAY = "(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')";
    /** The history job runs once a minute: its next pass after the test's setup, and a tick's slack. */
    private static final Duration NEXT_PASS = Duration.ofSeconds(90);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private OutboxClient client;
    private OutboxApi admin;
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() {
        client = ItClients.client(base, ADMIN);
        admin = ItClients.restClient(base, ADMIN);
    }

    @AfterEach
    void stop() {
        ItClients.close(admin);
        client.close();
    }

    @Test
    void thePartitionPastRetentionIsDroppedAndTheRecentRowsStayReadable() {
        // a database upgraded long ago: the table from V7 has aged out, and days are partitions, one ten days old;
        // one transaction, so that no row the server finishes meanwhile lands in the default partition between the
        // drop and the attaches (it would then hold rows of today's range, and today's attach would fail)
        ItDatabase.update("""
                DO $$
                DECLARE
                    today timestamptz := date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
                BEGIN
                    DROP TABLE IF EXISTS delivery_history_v7;
                    CREATE TABLE delivery_history_it_old (LIKE delivery_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
                    EXECUTE format('ALTER TABLE delivery_history ATTACH PARTITION delivery_history_it_old FOR VALUES FROM (%L) TO (%L)',
                                   today - interval '10 days', today - interval '9 days');
                    CREATE TABLE delivery_history_it_today (LIKE delivery_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
                    EXECUTE format('ALTER TABLE delivery_history ATTACH PARTITION delivery_history_it_today FOR VALUES FROM (%L) TO (%L)',
                                   today, today + interval '1 day');
                END
                $$""");
        UUID root = UUID.randomUUID();
        UUID old = UUID.randomUUID();
        history(old, root, "delivered", TODAY + " - interval '10 days' + interval '1 hour'");
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM delivery_history_it_old"));

        UUID trigger = client.createTrigger(app, TriggerDefinition.handler("http", "recorder"), Call.plain()).id();
        UUID recent = client.enqueue(
                NewRow.of(app, "http", trigger, Json.createObjectBuilder().add("n", 1).build()).cascade(root, 0));
        Eventually.until(WAIT, () -> "delivered".equals(status(recent)), () -> status(recent));
        // a row that died earlier today, was replayed and is delivered now: two outcomes, the newer answers
        UUID replayed = UUID.randomUUID();
        history(replayed, root, "dead", TODAY + " + (now() - " + TODAY + ") / 2");
        ItDatabase.update("""
                INSERT INTO dead_letters (id, app_id, source_kind, trigger_id, payload, trigger_depth, root_execution_id,
                                          attempt_count, last_error, created_at)
                VALUES (?, ?, 'http', ?, '{}', 0, ?, 3, 'receiver down', now() - interval '2 hours')""",
                replayed, app, trigger, root);
        client.replayDeadLetter(replayed, Call.plain());
        Eventually.until(WAIT,
                () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE outbox_id = ?", replayed) == 2,
                () -> status(replayed));
        assertEquals(3,
                ItDatabase.count("SELECT count(*) FROM delivery_history_it_today WHERE root_execution_id = ?", root),
                "the recent outcomes are in today's partition");

        Eventually.until(NEXT_PASS,
                () -> ItDatabase.count("SELECT count(*) FROM pg_class WHERE relname = 'delivery_history_it_old'") == 0,
                () -> "the old partition is still there");

        assertEquals(404, assertThrows(ProblemException.class, () -> client.status(old)).status(),
                "its row went with it");
        JsonObject delivered = client.status(recent).json();
        assertEquals("delivered", delivered.getString("status"), delivered.toString());
        assertEquals(root.toString(), delivered.getString("rootExecutionId"));
        assertEquals("delivered", status(replayed), "the replayed row's newest outcome");
        JsonObject lineage = admin.lineage(root);
        assertEquals(2, lineage.getInt("rows"), lineage.toString());
        assertEquals(2, lineage.getJsonObject("byStatus").getInt("delivered", 0), lineage.toString());
    }

    private void history(UUID id, UUID root, String outcome, String finishedAt) {
        ItDatabase.update("""
                INSERT INTO delivery_history (outbox_id, app_id, source_kind, root_execution_id, trigger_depth, outcome,
                                              attempt_count, created_at, finished_at, finished_by)
                VALUES (?, ?, 'http', ?, 0, ?, 1, %1$s - interval '1 minute', %1$s, 'it')""".formatted(finishedAt),
                id, app, root, outcome);
    }

    private String status(UUID id) {
        return ItClients.status(client, id);
    }
}
