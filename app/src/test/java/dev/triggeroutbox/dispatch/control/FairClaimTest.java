package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.schema.control.Migrations;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL: an app whose rows are due behind another app's backlog is served by the next claim, and
 * the claims that follow still take the backlog in due order, leaving none of it behind.
 */
class FairClaimTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static final int LIMIT = 100;
    private static final Claims.Room ANY_ROOM = new Claims.Room(List.of(), List.of(), Map.of(), Map.of(), LIMIT, LIMIT);

    private DataSource db;
    private Claims claims;

    private void migrate() {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        Migrations.configuration(db).load().migrate();
        claims = new Claims();
        claims.dataSource = db;
    }

    @Test
    void rowsDueBehindAnotherAppsBacklogAreTakenByTheNextClaim() throws SQLException {
        migrate();
        UUID flood = UUID.randomUUID();
        UUID quiet = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        rows(flood, 2_000, 60); // due one to two minutes ago, far more than a window
        rows(quiet, 3, 1);      // due a second ago: 2,000 rows behind in due order
        rows(other, 1, 1);

        Claims.Claim first = claims.claim("node-a", ClaimToken.random(), LIMIT, 60_000, null, ANY_ROOM);

        assertEquals(LIMIT, first.rows().size());
        assertEquals(3, count(first.rows(), quiet), "every row of the quiet app, behind the backlog");
        assertEquals(1, count(first.rows(), other));
        assertEquals(LIMIT - 4, count(first.rows(), flood));
        assertTrue(first.windowFull());
        OffsetDateTime next = first.leftFrom() != null ? first.leftFrom() : first.takenTo();
        OffsetDateTime earliestLeft = earliestUnclaimed(flood);
        assertFalse(next.isAfter(earliestLeft),
                "the next claim starts at the backlog's earliest row left (" + earliestLeft + "), not after the rows "
                        + "taken behind it: " + next);
    }

    @Test
    void theClaimsThatFollowTakeTheBacklogInDueOrderAndLeaveNoneOfIt() throws SQLException {
        migrate();
        UUID flood = UUID.randomUUID();
        UUID late = UUID.randomUUID();
        rows(flood, 1_000, 60);
        rows(late, 1, 1);
        Set<UUID> taken = new HashSet<>();
        OffsetDateTime from = null;
        OffsetDateTime lastFlood = null;
        for (int claim = 0; claim < 20 && taken.size() < 1_001; claim++) {
            Claims.Claim c = claims.claim("node-a", ClaimToken.random(), LIMIT, 60_000, from, ANY_ROOM);
            for (ClaimedRow row : c.rows()) {
                assertTrue(taken.add(row.id().value()), "a row taken twice");
                if (row.appId().value().equals(flood)) {
                    assertTrue(lastFlood == null || !row.dueAt().isBefore(lastFlood.minusSeconds(1)),
                            "the backlog is taken in due order");
                }
            }
            lastFlood = c.rows().stream().filter(r -> r.appId().value().equals(flood)).map(ClaimedRow::dueAt)
                    .max(OffsetDateTime::compareTo).orElse(lastFlood);
            from = !c.windowFull() ? null : c.leftFrom() != null ? c.leftFrom() : c.takenTo();
        }
        assertEquals(1_001, taken.size(), "every row claimed by claims that started where the one before left off");
    }

    @Test
    void withoutABacklogTheClaimTakesEveryDueRowAndLooksNoFurther() throws SQLException {
        migrate();
        UUID app = UUID.randomUUID();
        rows(app, 10, 1);
        Claims.Claim c = claims.claim("node-a", ClaimToken.random(), LIMIT, 60_000, null, ANY_ROOM);
        assertEquals(10, c.rows().size());
        assertFalse(c.windowFull());
        assertNull(c.leftFrom());
    }

    private OffsetDateTime earliestUnclaimed(UUID app) throws SQLException {
        try (Connection con = db.getConnection();
                PreparedStatement ps = con.prepareStatement(
                        "SELECT min(next_attempt_at) FROM outbox WHERE app_id = ? AND claim_token IS NULL")) {
            ps.setObject(1, app);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class);
            }
        }
    }

    private static long count(List<ClaimedRow> rows, UUID app) {
        return rows.stream().filter(r -> r.appId().value().equals(app)).count();
    }

    /** {@code n} due rows of {@code app}, spread evenly over the {@code secondsAgo} seconds before a second ago. */
    private void rows(UUID app, int n, int secondsAgo) throws SQLException {
        try (Connection con = db.getConnection(); PreparedStatement ps = con.prepareStatement("""
                INSERT INTO outbox (id, app_id, source_kind, payload, next_attempt_at)
                SELECT gen_random_uuid(), ?, 'http', '{}',
                       now() - interval '1 second' - (? - g) * (? * interval '1 second') / ?
                FROM generate_series(1, ?) g
                """)) {
            ps.setObject(1, app);
            ps.setInt(2, n);
            ps.setInt(3, secondsAgo);
            ps.setInt(4, n);
            ps.setInt(5, n);
            ps.executeUpdate();
        }
    }
}
