package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.dispatch.entity.BatchOutcome;
import dev.triggeroutbox.outbox.control.Cancellations.Done;
import dev.triggeroutbox.outbox.control.Cancelling;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.schema.control.Migrations;
import dev.triggeroutbox.testkit.Sql;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL, with the product's migrations: each finishing statement writes its rows' attempts to the
 * delivery log in the same statement (failed with its status and answer, dead, cancelled in flight; a delivered one
 * as its history entry with its claim time and status),
 * the lease recovery writes the attempt that never reported, and a fenced finish writes nothing.
 */
class AttemptLogTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static final Claims.Room ANY_ROOM = new Claims.Room(List.of(), List.of(), Map.of(), Map.of(), 100, 100);

    private DataSource db;
    private Sql.On sql;
    private Claims claims;
    private final UUID app = UUID.randomUUID();

    private void migrate() throws SQLException {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        sql = Sql.on(db);
        Migrations.configuration(db).load().migrate();
        claims = new Claims();
        claims.dataSource = db;
        update("DELETE FROM outbox");
    }

    @Test
    void everyFinishWritesItsAttemptsAndAFencedOneNone() throws SQLException {
        migrate();
        UUID delivered = row();
        UUID retried = row();
        UUID dead = row();
        UUID cancelled = row();
        UUID fenced = row();
        ClaimToken token = ClaimToken.random();
        assertEquals(5, claims.claim("node-a", token, 10, 60_000, null, ANY_ROOM).rows().size());
        assertEquals(Done.REQUESTED, Cancelling.on(db).cancel(new OutboxId(cancelled), a -> true));

        BatchOutcome outcome = new BatchOutcome();
        outcome.delivered(new OutboxId(delivered), token, new BatchOutcome.Attempt(204, null));
        outcome.retry(new OutboxId(retried), token, 0, "webhook answered HTTP 503",
                new BatchOutcome.Attempt(503, "x".repeat(5000)));
        outcome.dead(new OutboxId(dead), token, "webhook refused the delivery with HTTP 422", false,
                new BatchOutcome.Attempt(422, "no"));
        outcome.retry(new OutboxId(cancelled), token, 10, "boom");
        outcome.delivered(new OutboxId(fenced), ClaimToken.random()); // another claim's token
        Claims.Finished finished = claims.finish("node-a", outcome);
        assertEquals(1, finished.fenced());

        assertEquals(List.of(), log(delivered), "a delivered attempt is its history entry");
        assertEquals(1, count("SELECT count(*) FROM delivery_history WHERE outbox_id = ? AND outcome = 'delivered'"
                + " AND http_status = 204 AND claimed_at IS NOT NULL AND claimed_at <= finished_at AND finished_by = 'node-a'",
                delivered));
        assertEquals(List.of("1 failed 503 node-a"), log(retried));
        assertEquals(1024, count("SELECT length(answer) FROM delivery_attempts WHERE outbox_id = ?", retried),
                "1 KiB of the answer");
        assertEquals(List.of("1 dead 422 node-a"), log(dead));
        assertEquals("no", text("SELECT answer FROM delivery_attempts WHERE outbox_id = ?", dead));
        assertEquals(List.of("1 cancelled null node-a"), log(cancelled));
        assertEquals(List.of(), log(fenced), "a fenced result is no attempt of the log");

        // the retried row's second attempt never reports: its lease runs out
        assertEquals(1, claims.claim("node-b", ClaimToken.random(), 10, 60_000, null, ANY_ROOM).rows().size(),
                "the retry, once due");
        update("UPDATE outbox SET lease_expires_at = now() - interval '1 second' WHERE id = '" + retried + "'");
        assertTrue(claims.recoverExpiredLeases(100, null).rows() >= 1);
        assertEquals(List.of("1 failed 503 node-a", "2 failed null node-b"), log(retried));
        assertTrue(text("SELECT error FROM delivery_attempts WHERE outbox_id = ? AND attempt = 2", retried)
                .contains("lease of node-b expired"));
    }

    private UUID row() throws SQLException {
        UUID id = UUID.randomUUID();
        update("INSERT INTO outbox (id, app_id, source_kind, payload, next_attempt_at) VALUES ('" + id + "', '" + app
                + "', 'http', '{}', now() - interval '1 second')");
        return id;
    }

    private List<String> log(UUID row) {
        return sql.query(
                "SELECT attempt, outcome, http_status, node FROM delivery_attempts WHERE outbox_id = ? ORDER BY finished_at, attempt",
                row)
                .stream().map(r -> r[0] + " " + r[1] + " " + r[2] + " " + r[3]).toList();
    }

    private void update(String statement) {
        sql.update(statement);
    }

    private long count(String statement, UUID id) {
        return sql.count(statement, id);
    }

    private String text(String statement, UUID id) {
        return sql.text(statement, id);
    }
}
