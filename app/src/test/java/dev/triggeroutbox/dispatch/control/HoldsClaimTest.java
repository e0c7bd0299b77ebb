package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.holds.control.Holding;
import dev.triggeroutbox.holds.control.Holds;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.schema.control.Migrations;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.testkit.Sql;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL, with the product's migrations: the claim passes over the rows of an app on hold and of
 * held and disabled triggers and takes the rest, and takes nothing while dispatching is paused; the settle parks held rows out of the due order (their due
 * time kept) and never a row in flight; a release puts them back at their due times, in order; a parked row
 * whose hold went without its release is put back by the next settle.
 */
class HoldsClaimTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static final Claims.Room ANY_ROOM = new Claims.Room(List.of(), List.of(), Map.of(), Map.of(), 1000, 1000);

    private DataSource db;
    private Sql.On sql;
    private Claims claims;
    private Holds holds;

    /** Called first by each test: the extension starts its PostgreSQL just before the test runs. */
    private void migrate() throws SQLException {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        sql = Sql.on(db);
        Migrations.configuration(db).load().migrate();
        claims = new Claims();
        claims.dataSource = db;
        holds = Holding.on(db);
        update("DELETE FROM outbox");
        update("DELETE FROM app_holds");
    }

    @Test
    void theClaimPassesOverHeldAppsAndHeldOrDisabledTriggers() throws SQLException {
        migrate();
        UUID heldApp = UUID.randomUUID();
        UUID app = UUID.randomUUID();
        UUID heldAppsTrigger = trigger(heldApp, true, false);
        UUID free = trigger(app, true, false);
        UUID held = trigger(app, true, true);
        UUID disabled = trigger(app, false, false);
        assertTrue(holds.holdApp(new AppId(heldApp), "ops"));
        assertEquals(false, holds.holdApp(new AppId(heldApp), "ops"), "a second hold changes nothing");
        List<UUID> waiting = new ArrayList<>();
        waiting.add(row(heldApp, heldAppsTrigger, 0));
        waiting.add(row(app, held, 0));
        waiting.add(row(app, disabled, 0));
        UUID freeRow = row(app, free, 0);

        assertEquals(Set.of(freeRow), claimed());
        assertEquals(Set.of(), claimed(), "the held rows stay unclaimed");
        for (UUID id : waiting) {
            assertEquals(0, count("SELECT attempt_count FROM outbox WHERE id = ?", id), "a held row spent an attempt");
        }
    }

    @Test
    void theClaimTakesNothingWhileDispatchingIsPaused() throws SQLException {
        migrate();
        UUID app = UUID.randomUUID();
        UUID row = row(app, trigger(app, true, false), 0);
        update("UPDATE dispatcher_state SET paused = true");
        try {
            assertEquals(Set.of(), claimed(), "a claim begun after the pause committed took a row");
        } finally {
            update("UPDATE dispatcher_state SET paused = false");
        }
        assertEquals(Set.of(row), claimed());
    }

    @Test
    void settleParksHeldRowsAndAReleasePutsThemBackInTheirDueOrder() throws SQLException {
        migrate();
        UUID app = UUID.randomUUID();
        UUID trigger = trigger(app, true, false);
        List<UUID> rows = List.of(row(app, trigger, -30), row(app, trigger, -20), row(app, trigger, -10));
        UUID inFlight = row(app, trigger, -40);
        assertEquals(Set.of(inFlight), claimed(1), "the earliest is in flight when the hold comes");
        assertTrue(holds.holdApp(new AppId(app), "ops"));

        Holds.Settled settled = holds.settle();
        assertEquals(3, settled.parked());
        assertEquals(0, settled.unparked());
        assertEquals(3, count(
                "SELECT count(*) FROM outbox WHERE app_id = ? AND next_attempt_at = 'infinity' AND held_due_at IS NOT NULL",
                app));
        assertEquals(0, count("SELECT count(*) FROM outbox WHERE id = ? AND held_due_at IS NOT NULL", inFlight),
                "a row in flight was parked");
        assertEquals(new Holds.Settled(0, 0), holds.settle(), "nothing more to do");
        assertEquals(Set.of(), claimed());

        assertEquals(3, holds.releaseApp(new AppId(app)).orElseThrow());
        assertEquals(0, count("SELECT count(*) FROM outbox WHERE app_id = ? AND held_due_at IS NOT NULL", app));
        List<UUID> inOrder = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inOrder.addAll(claimed(1));
        }
        assertEquals(rows, inOrder, "back in the order they were due");
        assertTrue(holds.releaseApp(new AppId(app)).isEmpty(), "a release of an app not on hold");
    }

    @Test
    void aTriggerHoldParksOnlyItsRowsAndAParkedRowWhoseHoldIsGoneComesBackWithTheNextSettle() throws SQLException {
        migrate();
        UUID app = UUID.randomUUID();
        UUID held = trigger(app, true, true);
        UUID free = trigger(app, true, false);
        UUID heldRow = row(app, held, -5);
        UUID freeRow = row(app, free, -5);
        assertEquals(new Holds.Settled(1, 0), holds.settle());
        assertEquals(1, count("SELECT count(*) FROM outbox WHERE id = ? AND next_attempt_at = 'infinity'", heldRow));
        assertEquals(0, count("SELECT count(*) FROM outbox WHERE id = ? AND held_due_at IS NOT NULL", freeRow));
        assertEquals("trigger " + held + " is on hold",
                holds.heldBecause(new AppId(app), new TriggerId(held)).orElseThrow());

        // released without its own put-back (as a release beside a settle that parked behind it leaves it)
        update("UPDATE triggers SET held = false WHERE id = '" + held + "'");
        assertEquals(new Holds.Settled(0, 1), holds.settle());
        assertEquals(Set.of(heldRow, freeRow), claimed());
    }

    private Set<UUID> claimed() throws SQLException {
        return claimed(100);
    }

    private Set<UUID> claimed(int limit) throws SQLException {
        List<ClaimedRow> rows = claims.claim("node-a", ClaimToken.random(), limit, 60_000, null, ANY_ROOM).rows();
        return rows.stream().map(r -> r.id().value()).collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    }

    private UUID trigger(UUID app, boolean enabled, boolean held) throws SQLException {
        UUID id = UUID.randomUUID();
        update("INSERT INTO triggers (id, app_id, source_kind, target_type, target, enabled, held) VALUES ('" + id
                + "', '"
                + app + "', 'kv', 'handler', 'recorder', " + enabled + ", " + held + ")");
        return id;
    }

    /** A row due {@code seconds} from now (negative: due since then). */
    private UUID row(UUID app, UUID trigger, int seconds) throws SQLException {
        UUID id = UUID.randomUUID();
        update("INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, next_attempt_at) VALUES ('" + id
                + "', '"
                + app + "', 'kv', '" + trigger + "', '{}', now() + " + seconds + " * interval '1 second')");
        return id;
    }

    private void update(String statement) {
        sql.update(statement);
    }

    private long count(String statement, UUID id) {
        return sql.count(statement, id);
    }
}
