package dev.triggeroutbox.console.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.schema.control.Migrations;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL, without a server: a replayed dead letter is back in the outbox under its own id, due now,
 * attempts reset, its trace context and attempt budget kept, and an invoke's stored "dead" answer forgotten; a
 * replay of what is no dead letter (any more) changes nothing.
 */
class ReplayTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private DataSource db;

    @Test
    void aReplayedDeadLetterIsDueAgainUnderItsOwnIdAndItsDeadAnswerIsForgotten() throws SQLException {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        Migrations.configuration(db).load().migrate();
        DeadLetters deadLetters = new DeadLetters();
        deadLetters.jdbc = new Jdbc(db);
        UUID id = UUID.randomUUID();
        UUID replyTo = UUID.randomUUID();
        UUID app = UUID.randomUUID();
        update("""
                INSERT INTO dead_letters (id, app_id, source_kind, reply_to, payload, trigger_depth, attempt_count, last_error,
                                          created_at, max_attempts, traceparent)
                VALUES (?, ?, 'http', ?, '{"n": 1}', 2, 5, 'HTTP 500', now() - interval '1 hour', 5,
                        '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')""", id, app, replyTo);
        update("INSERT INTO replies (id, app_id, outbox_id, outcome, error) VALUES (?, ?, ?, 'dead', 'HTTP 500')",
                replyTo, app, id);

        assertTrue(deadLetters.replay(new OutboxId(id), "admin"));

        assertEquals(0, count("SELECT count(*) FROM dead_letters WHERE id = ?", id));
        assertEquals(0, count("SELECT count(*) FROM replies WHERE id = ?", replyTo),
                "the caller waits for the new answer");
        assertEquals(1, count("""
                SELECT count(*) FROM outbox
                WHERE id = ? AND app_id = ? AND reply_to = ? AND attempt_count = 0 AND next_attempt_at <= now()
                  AND claim_token IS NULL AND max_attempts = 5 AND trigger_depth = 2 AND payload = '{"n": 1}'
                  AND traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
                  AND last_error = 'replayed by admin after: HTTP 500'""", id, app, replyTo));

        assertFalse(deadLetters.replay(new OutboxId(id), "admin"), "no dead letter any more");
        assertEquals(1, count("SELECT count(*) FROM outbox WHERE id = ?", id), "nothing written twice");
    }

    private void update(String sql, Object... args) throws SQLException {
        try (Connection con = db.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }

    private long count(String sql, Object... args) throws SQLException {
        try (Connection con = db.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
