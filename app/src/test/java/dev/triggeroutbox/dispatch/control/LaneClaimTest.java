package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.schema.control.Migrations;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Sql;
import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real PostgreSQL, with the product's migrations: a lane's rows wait out of the due order behind its head and
 * come due one by one as each head leaves; one claim takes one row per lane, however many are due; and a row
 * written behind a head while that head is being finished comes due when the finish commits (the race the insert's
 * lock on the row before it closes), never left waiting without a head.
 */
class LaneClaimTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static final Claims.Room ANY_ROOM = new Claims.Room(List.of(), List.of(), Map.of(), Map.of(), 1000, 1000);

    private DataSource db;
    private Sql.On sql;
    private Claims claims;
    private final UUID app = UUID.randomUUID();
    private UUID trigger;

    private void migrate() throws SQLException {
        db = POSTGRES.getEmbeddedPostgres().getPostgresDatabase();
        sql = Sql.on(db);
        Migrations.configuration(db).load().migrate();
        claims = new Claims();
        claims.dataSource = db;
        sql.update("DELETE FROM outbox");
        trigger = UUID.randomUUID();
        sql.update(
                "INSERT INTO triggers (id, app_id, source_kind, target_type, target) VALUES (?, ?, 'kv', 'handler', 'h')",
                trigger, app);
    }

    private UUID row(Connection con, String key) throws SQLException {
        UUID id = UUID.randomUUID();
        try (PreparedStatement ps = con.prepareStatement("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, ordering_key)
                VALUES (?, ?, 'kv', ?, '{}', ?)""")) {
            ps.setObject(1, id);
            ps.setObject(2, app);
            ps.setObject(3, trigger);
            ps.setString(4, key);
            ps.executeUpdate();
        }
        return id;
    }

    private UUID row(String key) throws SQLException {
        try (Connection con = db.getConnection()) {
            return row(con, key);
        }
    }

    private List<UUID> claimed() throws SQLException {
        return claims.claim("n1", ClaimToken.random(), 100, 60_000, null, ANY_ROOM).rows().stream()
                .map(ClaimedRow::id).map(i -> i.value()).toList();
    }

    private boolean waiting(UUID id) {
        return sql.count(
                "SELECT count(*) FROM outbox WHERE id = ? AND next_attempt_at = 'infinity' AND lane_due_at IS NOT NULL",
                id) == 1;
    }

    @Test
    void aLanesRowsWaitBehindItsHeadAndComeDueOneByOne() throws SQLException {
        migrate();
        UUID a1 = row("a");
        UUID a2 = row("a");
        UUID a3 = row("a");
        UUID b1 = row("b");
        UUID free = row(null);
        assertTrue(waiting(a2) && waiting(a3), "rows behind a head wait out of the due order");
        assertEquals(false, waiting(a1) || waiting(b1) || waiting(free), "heads and unkeyed rows are due");

        assertEquals(java.util.Set.of(a1, b1, free), java.util.Set.copyOf(claimed()), "one row per lane");
        assertEquals(List.of(), claimed(), "nothing more while the heads are in flight");
        sql.update("DELETE FROM outbox WHERE id = ?", a1); // as a finish does
        assertEquals(false, waiting(a2), "the next row comes due when its head leaves");
        assertTrue(waiting(a3));
        assertEquals(List.of(a2), claimed());
        // a waiting row that is cancelled brings nothing due behind it: a2 still heads the lane
        UUID a4 = row("a");
        sql.update("DELETE FROM outbox WHERE id = ?", a3);
        assertTrue(waiting(a4), "a4 waits behind a2");
        sql.update("DELETE FROM outbox WHERE id = ?", a2);
        assertEquals(List.of(a4), claimed());
    }

    @Test
    void aRowWrittenBehindAHeadBeingFinishedComesDueWhenTheFinishCommits() throws Exception {
        migrate();
        UUID head = row("race");
        try (Connection producer = db.getConnection()) {
            producer.setAutoCommit(false);
            UUID behind = row(producer, "race");
            // the finish deletes the head while the producer's transaction is open: it waits for the producer
            CompletableFuture<Integer> finish = CompletableFuture
                    .supplyAsync(() -> sql.update("DELETE FROM outbox WHERE id = ?", head));
            // the finish waits on the producer's lock on the head
            Eventually.until(Duration.ofSeconds(10),
                    () -> sql.count("SELECT count(*) FROM pg_locks WHERE NOT granted") > 0,
                    () -> "the finish never waited: " + finish);
            producer.commit();
            assertEquals(1, finish.get(10, TimeUnit.SECONDS));
            assertEquals(false, waiting(behind), "the row behind the finished head is due, not left waiting");
            assertEquals(List.of(behind), claimed());
        }
    }

    @Test
    void twoDispatchersClaimingAtOnceTakeEachLaneOneRowAtATimeInOrder() throws Exception {
        migrate();
        int lanes = 20;
        int perLane = 10;
        Map<String, List<UUID>> written = new java.util.LinkedHashMap<>();
        for (int i = 0; i < perLane; i++) {
            for (int k = 0; k < lanes; k++) {
                written.computeIfAbsent("lane-" + k, x -> new java.util.ArrayList<>()).add(row("lane-" + k));
            }
        }
        Map<UUID, String> laneOf = new java.util.HashMap<>();
        written.forEach((lane, ids) -> ids.forEach(id -> laneOf.put(id, lane)));
        Map<String, List<UUID>> delivered = new java.util.HashMap<>();
        java.util.concurrent.ExecutorService nodes = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            int finished = 0;
            for (int round = 0; round < lanes * perLane && finished < lanes * perLane; round++) {
                // both nodes claim at the same moment; together they never hold two rows of one lane
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                List<java.util.concurrent.Future<List<UUID>>> claims = new java.util.ArrayList<>();
                for (String node : List.of("n1", "n2")) {
                    claims.add(nodes.submit(() -> {
                        start.await();
                        return claims(node);
                    }));
                }
                List<UUID> inFlight = new java.util.ArrayList<>();
                for (var claim : claims) {
                    inFlight.addAll(claim.get(10, TimeUnit.SECONDS));
                }
                Map<String, Long> perLaneNow = inFlight.stream()
                        .collect(java.util.stream.Collectors.groupingBy(laneOf::get,
                                java.util.stream.Collectors.counting()));
                assertTrue(perLaneNow.values().stream().allMatch(n -> n == 1),
                        "two rows of one lane in flight: " + perLaneNow);
                for (UUID id : inFlight) {
                    delivered.computeIfAbsent(laneOf.get(id), x -> new java.util.ArrayList<>()).add(id);
                    sql.update("DELETE FROM outbox WHERE id = ?", id); // finished
                    finished++;
                }
            }
        } finally {
            nodes.shutdownNow();
        }
        assertEquals(written, delivered, "every lane delivered whole, in the order it was written");
    }

    private List<UUID> claims(String node) throws SQLException {
        return claims.claim(node, ClaimToken.random(), 100, 60_000, null, ANY_ROOM).rows().stream()
                .map(ClaimedRow::id).map(i -> i.value()).toList();
    }
}
