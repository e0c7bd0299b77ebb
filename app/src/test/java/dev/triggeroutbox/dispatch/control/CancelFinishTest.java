package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.dispatch.entity.BatchOutcome;
import dev.triggeroutbox.outbox.control.CancelFilter;
import dev.triggeroutbox.outbox.control.Cancellations.Done;
import dev.triggeroutbox.outbox.control.Cancellations;
import dev.triggeroutbox.outbox.control.Cancelling;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.schema.control.Migrations;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL, with the product's migrations: what a cancel does to a row that nobody delivers (to
 * history at once, its invoke answered) and to one in flight (marked; the fenced finish makes it cancelled
 * unless its attempt delivered, the lease recovery too), and the bulk cancel's limit and {@code more}.
 */
class CancelFinishTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static final Claims.Room ANY_ROOM = new Claims.Room(List.of(), List.of(), Map.of(), Map.of(), 100, 100);

    private DataSource db;
    private Claims claims;
    private Cancellations cancellations;
    private final UUID app = UUID.randomUUID();

    /** Called first by each test: the extension starts its PostgreSQL just before the test runs, after any @BeforeEach. */
    private void migrate() {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        Migrations.configuration(db).load().migrate();
        claims = new Claims();
        claims.dataSource = db;
        cancellations = Cancelling.on(db);
    }

    @Test
    void aRowInFlightEndsCancelledUnlessItsAttemptDelivered() throws SQLException {
        migrate();
        List<UUID> ids = List.of(row(null), row(null), row(null), row(null), row(null));
        ClaimToken token = ClaimToken.random();
        List<ClaimedRow> claimed = claims.claim("node-a", token, 10, 60_000, null, ANY_ROOM).rows();
        assertEquals(5, claimed.size());
        for (UUID id : ids.subList(0, 4)) {
            assertEquals(Done.REQUESTED, cancellations.cancel(new OutboxId(id), a -> true));
        }
        assertEquals(Done.REQUESTED, cancellations.cancel(new OutboxId(ids.get(0)), a -> true),
                "a repeat marks it again");

        BatchOutcome outcome = new BatchOutcome();
        outcome.delivered(new OutboxId(ids.get(0)), token);
        outcome.retry(new OutboxId(ids.get(1)), token, 10, "HTTP 500");
        outcome.dead(new OutboxId(ids.get(2)), token, "HTTP 400");
        outcome.release(new OutboxId(ids.get(3)), token);
        outcome.retry(new OutboxId(ids.get(4)), token, 10, "HTTP 500"); // not cancelled: retried as ever
        Claims.Finished finished = claims.finish("node-a", outcome);

        assertEquals(1, finished.delivered());
        assertEquals(3, finished.cancelled());
        assertEquals(1, finished.retried());
        assertEquals(0, finished.dead() + finished.released() + finished.fenced(), finished.toString());
        assertEquals("delivered", outcomeOf(ids.get(0)));
        for (UUID id : ids.subList(1, 4)) {
            assertEquals("cancelled", outcomeOf(id));
            assertEquals(0, count("SELECT count(*) FROM outbox WHERE id = ?", id));
        }
        assertEquals(0, count("SELECT count(*) FROM dead_letters WHERE id = ?", ids.get(2)),
                "a cancelled row is not dead-lettered");
        assertEquals(1, count("SELECT count(*) FROM outbox WHERE id = ? AND claim_token IS NULL", ids.get(4)));
    }

    @Test
    void aLateFinishOfAMarkedRowIsFencedAndTheLeaseRecoveryCancelsIt() throws SQLException {
        migrate();
        UUID id = row(UUID.randomUUID());
        ClaimToken token = ClaimToken.random();
        assertEquals(1, claims.claim("node-a", token, 10, 60_000, null, ANY_ROOM).rows().size());
        assertEquals(Done.REQUESTED, cancellations.cancel(new OutboxId(id), a -> true));

        BatchOutcome late = new BatchOutcome();
        late.retry(new OutboxId(id), ClaimToken.random(), 10, "HTTP 500"); // another claim's token
        assertEquals(1, claims.finish("node-a", late).fenced());
        assertEquals(1, count("SELECT count(*) FROM outbox WHERE id = ? AND cancel_requested", id));

        update("UPDATE outbox SET lease_expires_at = now() - interval '1 second' WHERE id = ?", id);
        assertEquals(1, claims.recoverExpiredLeases(100, null).rows());
        assertEquals(0, count("SELECT count(*) FROM outbox WHERE id = ?", id), "not made due again");
        assertEquals("cancelled", outcomeOf(id));
        assertEquals(1, count("SELECT count(*) FROM replies WHERE outbox_id = ? AND outcome = 'cancelled'", id));
    }

    @Test
    void aPendingRowIsCancelledAtOnceAndOnlyForAnAppTheCallerReaches() throws SQLException {
        migrate();
        UUID replyTo = UUID.randomUUID();
        UUID id = row(replyTo);
        assertEquals(Done.NOT_HERE, cancellations.cancel(new OutboxId(id), a -> false));
        assertEquals(1, count("SELECT count(*) FROM outbox WHERE id = ? AND NOT cancel_requested", id), "untouched");
        assertEquals(Done.NOT_HERE, cancellations.cancel(new OutboxId(UUID.randomUUID()), a -> true));

        assertEquals(Done.CANCELLED, cancellations.cancel(new OutboxId(id), a -> a.equals(new AppId(app))));
        assertEquals("cancelled", outcomeOf(id));
        assertEquals(1, count("SELECT count(*) FROM replies WHERE id = ? AND outcome = 'cancelled'", replyTo));
        assertEquals(Done.NOT_HERE, cancellations.cancel(new OutboxId(id), a -> true), "gone from the outbox");

        // a row whose lease ran out is nobody's delivery: cancelled at once too
        UUID expired = row(null);
        assertEquals(1, claims.claim("node-a", ClaimToken.random(), 10, 60_000, null, ANY_ROOM).rows().size());
        update("UPDATE outbox SET lease_expires_at = now() - interval '1 second' WHERE id = ?", expired);
        assertEquals(Done.CANCELLED, cancellations.cancel(new OutboxId(expired), a -> true));
    }

    @Test
    void aBulkCancelTakesAtMostItsLimitAndSaysWhenMoreMatch() throws SQLException {
        migrate();
        UUID inFlight = row(null);
        assertEquals(1, claims.claim("node-a", ClaimToken.random(), 10, 60_000, null, ANY_ROOM).rows().size());
        for (int i = 0; i < 3; i++) {
            row(null);
        }
        CancelFilter filter = new CancelFilter(new AppId(app), null, null, null);
        Cancellations.Bulk first = cancellations.cancelMatching(filter, 3);
        assertEquals(3, first.ids().size());
        assertTrue(first.more());
        Cancellations.Bulk second = cancellations.cancelMatching(filter, 3);
        assertEquals(4, first.cancelled() + first.requested() + second.cancelled() + second.requested());
        assertEquals(1, first.requested() + second.requested(), "the row in flight is marked");
        assertFalse(second.more());
        assertEquals(1, count("SELECT count(*) FROM outbox WHERE app_id = ?", app));
        assertEquals(1, count("SELECT count(*) FROM outbox WHERE id = ? AND cancel_requested", inFlight));
        assertEquals(0, cancellations.cancelMatching(filter, 3).ids().size(), "a marked row is not taken again");
    }

    /** A due row of the test's app, with a reply id or none. */
    private UUID row(UUID replyTo) throws SQLException {
        UUID id = UUID.randomUUID();
        update("INSERT INTO outbox (id, app_id, source_kind, payload, reply_to) VALUES (?, '" + app
                + "', 'http', '{}', ?)",
                id, replyTo);
        return id;
    }

    private String outcomeOf(UUID id) throws SQLException {
        try (Connection con = db.getConnection();
                PreparedStatement ps = con.prepareStatement(
                        "SELECT string_agg(outcome, ',') FROM delivery_history WHERE outbox_id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private long count(String sql, UUID id) throws SQLException {
        try (Connection con = db.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void update(String sql, Object... args) throws SQLException {
        try (Connection con = db.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }
}
