package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.dispatch.entity.BatchOutcome;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import jakarta.inject.Inject;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The dispatcher's SQL: claim a batch, finish a batch, recover expired leases. Each is a fixed
 * number of statements per batch, never one per row, and each finishing statement is fenced by the
 * claim token and the lease: a node that lost its lease changes nothing.
 */
@ApplicationScoped
public class Claims {

    /**
     * The claim (public so the benchmark times exactly this statement; {@link #bind} sets its parameters). It
     * locks a window of the earliest due rows, passing over apps and triggers that already have their share of
     * this node in flight, and over those on hold (apps on hold, triggers held or disabled: their rows wait, see
     * holds/control/Holds); while dispatching is paused (DispatcherSwitch) it takes nothing. When that window is full (a backlog: one app's burst can fill it alone), it also
     * locks the earliest due rows of every other app with rows due behind it, found one index probe per app
     * ({@code outbox_app_due}, V13). From all these it takes at most each app's and each trigger's remaining
     * room, interleaving apps (every app's first row, then every app's second, …; due order within an app), so
     * an app whose rows are due behind another's backlog is served by the next claim, not after that backlog.
     * Parameters: 1 where to start in the due index, 2 apps at their share, 3 triggers at their share,
     * 4 window size, 5 room of an app not listed in 7, 6 room of a trigger not listed in 9, 7/8 apps with
     * deliveries in flight and their room, 9/10 the same for triggers, 11 rows to claim, 12 the claim's
     * token, 13 node name, 14 lease in milliseconds.
     */
    public static final String CLAIM = """
            WITH RECURSIVE params AS (
                SELECT ?::timestamptz AS from_due,                   -- 1: where the last full claim ended
                       -- 2: apps at their share, and the apps on hold (read here, so a hold committed before
                       -- this claim began is seen; a handful of rows)
                       ?::uuid[] || ARRAY(SELECT app_id FROM app_holds) AS full_apps,
                       -- 3: triggers at their share, and the held and disabled ones (index triggers_held)
                       ?::uuid[] || ARRAY(SELECT id FROM triggers WHERE held OR NOT enabled) AS full_triggers,
                       -- 4: window; none while dispatching is paused, read here so that no claim begun after the
                       -- pause committed takes a row, whenever its node's drain loop notices the pause
                       CASE WHEN (SELECT paused FROM dispatcher_state) THEN 0 ELSE ?::int END AS window_size,
                       ?::int AS app_room,                           -- 5: room of an app with nothing in flight
                       ?::int AS trigger_room,                       -- 6: room of a trigger with nothing in flight
                       ?::uuid[] AS room_apps, ?::int[] AS app_rooms,            -- 7, 8
                       ?::uuid[] AS room_triggers, ?::int[] AS trigger_rooms,    -- 9, 10
                       CASE WHEN (SELECT paused FROM dispatcher_state) THEN 0 ELSE ?::int END AS claim_limit  -- 11: rows to claim
            ), window_rows AS (
                SELECT id, app_id, trigger_id, next_attempt_at FROM outbox
                WHERE claim_token IS NULL AND next_attempt_at <= now()
                  AND next_attempt_at >= (SELECT from_due FROM params)
                  AND app_id <> ALL ((SELECT full_apps FROM params)::uuid[])
                  AND (trigger_id IS NULL OR trigger_id <> ALL ((SELECT full_triggers FROM params)::uuid[]))
                  AND (ordering_key IS NULL OR ${laneHead:outbox})
                ORDER BY next_attempt_at
                LIMIT (SELECT window_size FROM params)
                FOR UPDATE SKIP LOCKED
            ), behind(app_id, probes) AS (
                -- behind a full window only: the apps with rows waiting, in app order, one probe each; no
                -- "<= now()" here, which would walk every entry of an app with only rows due later (scheduled
                -- ones): whether an app has due rows is its own probe's question below
                SELECT (SELECT o.app_id FROM outbox o
                        WHERE o.claim_token IS NULL
                          AND o.next_attempt_at >= (SELECT from_due FROM params)
                        ORDER BY o.app_id LIMIT 1), 1
                WHERE (SELECT count(*) FROM window_rows) >= (SELECT window_size FROM params)
                  AND (SELECT window_size FROM params) > 0
                UNION ALL
                SELECT (SELECT o.app_id FROM outbox o
                        WHERE o.claim_token IS NULL
                          AND o.next_attempt_at >= (SELECT from_due FROM params)
                          AND o.app_id > b.app_id
                        ORDER BY o.app_id LIMIT 1), b.probes + 1
                FROM behind b
                WHERE b.app_id IS NOT NULL AND b.probes < (SELECT claim_limit FROM params)
            ), rooms AS (
                SELECT r.app_id, r.room FROM params, unnest(room_apps, app_rooms) AS r(app_id, room)
            ), behind_rows AS (
                SELECT h.id, h.app_id, h.trigger_id, h.next_attempt_at
                FROM behind b
                LEFT JOIN rooms r ON r.app_id = b.app_id
                CROSS JOIN LATERAL (
                    SELECT o.id, o.app_id, o.trigger_id, o.next_attempt_at FROM outbox o
                    -- app_id as a range of one, and first in the order, as in outbox_app_due: with "=" the
                    -- planner drops app_id from the order and may walk the whole due index for this app's rows
                    WHERE o.app_id >= b.app_id AND o.app_id <= b.app_id
                      AND o.claim_token IS NULL AND o.next_attempt_at <= now()
                      AND o.next_attempt_at >= (SELECT from_due FROM params)
                      AND (o.trigger_id IS NULL OR o.trigger_id <> ALL ((SELECT full_triggers FROM params)::uuid[]))
                      AND (o.ordering_key IS NULL OR ${laneHead:o})
                    ORDER BY o.app_id, o.next_attempt_at
                    LIMIT least(coalesce(r.room, (SELECT app_room FROM params)), (SELECT claim_limit FROM params))
                    FOR UPDATE SKIP LOCKED
                ) h
                WHERE b.app_id IS NOT NULL
                  AND b.app_id <> ALL ((SELECT full_apps FROM params)::uuid[])
                  AND b.app_id NOT IN (SELECT w.app_id FROM window_rows w)
            ), candidates AS (
                SELECT id, app_id, trigger_id, next_attempt_at, true AS in_window FROM window_rows
                UNION ALL
                SELECT id, app_id, trigger_id, next_attempt_at, false FROM behind_rows
            ), ranked AS (
                SELECT c.id, c.next_attempt_at, c.in_window,
                       row_number() OVER (PARTITION BY c.app_id ORDER BY c.next_attempt_at) AS in_app,
                       -- a row without a trigger counts against no trigger's room
                       row_number() OVER (PARTITION BY coalesce(c.trigger_id, c.id) ORDER BY c.next_attempt_at) AS in_trigger,
                       coalesce(a.room, p.app_room) AS app_room,
                       coalesce(t.room, p.trigger_room) AS trigger_room
                FROM candidates c CROSS JOIN params p
                LEFT JOIN rooms a ON a.app_id = c.app_id
                LEFT JOIN unnest(p.room_triggers, p.trigger_rooms) AS t(trigger_id, room) ON t.trigger_id = c.trigger_id
            ), due AS (
                SELECT id, next_attempt_at, in_window FROM ranked
                WHERE in_app <= app_room AND in_trigger <= trigger_room
                ORDER BY in_app, next_attempt_at
                LIMIT (SELECT claim_limit FROM params)
            ), claimed AS (
                UPDATE outbox o
                SET claim_token = ?,                                 -- 12: fresh token of this claim
                    claimed_by = ?,                                  -- 13: node name
                    claimed_at = now(),
                    lease_expires_at = now() + ? * interval '1 millisecond',  -- 14: lease
                    attempt_count = o.attempt_count + 1
                -- by primary key from an array: a plan that stays the same whatever the table's size
                WHERE o.id = ANY (ARRAY(SELECT id FROM due))
                RETURNING o.id, o.app_id, o.source_kind, o.trigger_id, o.script_id, o.reply_to,
                          o.payload::text AS payload, o.origin_principal, o.trigger_depth,
                          o.root_execution_id, o.attempt_count, o.max_attempts, o.created_at,
                          o.next_attempt_at, o.traceparent, o.tracestate, o.ordering_key
            )
            SELECT c.*, t.target_type, t.target, t.secret, t.max_attempts AS trigger_max_attempts,
                   t.previous_secret, t.previous_secret_expires_at, t.target_key,
                   (SELECT count(*) FROM window_rows) AS window_rows,
                   -- where the next claim may start in the due index: the earliest window row left for it (no
                   -- room, or past the limit), else the latest window row taken; rows behind the window do not
                   -- move it (the window's own rows between would be skipped)
                   (SELECT min(r.next_attempt_at) FROM ranked r
                    WHERE r.in_window AND r.id <> ALL (ARRAY(SELECT id FROM due))) AS left_from,
                   (SELECT max(d.next_attempt_at) FROM due d WHERE d.in_window) AS taken_to
            FROM claimed c LEFT JOIN triggers t ON t.id = c.trigger_id AND t.app_id = c.app_id  -- only the row's own app's trigger
            """.replace("${laneHead:outbox}", laneHead("outbox")).replace("${laneHead:o}", laneHead("o"));

    /**
     * Whether the keyed row {@code r} heads its lane: no earlier row of its lane (its trigger's, or its app's for a
     * row without one, with its ordering key) is in the outbox, pending, retrying, held or in flight (index
     * {@code outbox_lanes}, V21), and its lane is not blocked by a dead head (lane_blocks, V20). A lane's next row
     * is thus claimable only once the one before has left the outbox, delivered, dead-lettered or cancelled, so one
     * claim never takes two rows of a lane and no two nodes deliver a lane at once. Unkeyed rows never get here, and
     * few keyed ones that are not heads do: those wait out of the due order until their head leaves (V20's triggers),
     * so this check is what keeps the order, whatever a race between writers and finishers left due.
     */
    private static String laneHead(String r) {
        return """
                (NOT EXISTS (SELECT 1 FROM outbox e
                             WHERE coalesce(e.trigger_id, e.app_id) = coalesce(%1$s.trigger_id, %1$s.app_id)
                               AND e.ordering_key = %1$s.ordering_key AND e.lane_seq < %1$s.lane_seq)
                 AND NOT EXISTS (SELECT 1 FROM lane_blocks b
                                 WHERE b.lane = coalesce(%1$s.trigger_id, %1$s.app_id) AND b.ordering_key = %1$s.ordering_key))"""
                .formatted(r);
    }

    /**
     * What one claim took, and where the next may start: {@code windowFull} when the window was full (more
     * may be due behind it), {@code leftFrom} the earliest due time of a window row it left (null: none),
     * {@code takenTo} the latest due time of a window row it took (null: none).
     */
    public record Claim(List<ClaimedRow> rows, boolean windowFull, OffsetDateTime leftFrom, OffsetDateTime takenTo) {
    }

    /**
     * What this node may claim now: apps and triggers at their share (passed over), the room of those with
     * deliveries in flight, and the room of the others.
     */
    public record Room(List<UUID> fullApps, List<UUID> fullTriggers, Map<UUID, Integer> apps,
            Map<UUID, Integer> triggers,
            int appRoom, int triggerRoom) {
    }

    /** A lower bound below every due time: a claim that scans the whole due index. */
    public static final OffsetDateTime SCAN_FROM_START = OffsetDateTime.parse("1970-01-01T00:00:00Z");

    /**
     * How many rows one finish changed, and how many it refused because the claim was no longer held;
     * {@code released} rows never started and are claimable again with their attempt given back;
     * {@code cancelled} rows were cancelled while in flight and did not deliver, so they went to history as cancelled.
     */
    public record Finished(int delivered, int retried, int dead, int released, int cancelled, int fenced,
            Map<String, Integer> deliveredByKind, Map<String, Integer> retriedByKind, Map<String, Integer> deadByKind) {

        /** Totals only (nothing finished per kind, nothing released or cancelled): what a fully fenced finish returns. */
        public Finished(int delivered, int retried, int dead, int fenced) {
            this(delivered, retried, dead, 0, 0, fenced, Map.of(), Map.of(), Map.of());
        }
    }

    @Inject
    DataSource dataSource;

    /**
     * Claims up to {@code limit} due rows for {@code node} within {@code room}: one statement, so concurrent
     * claimers on any node never take the same row (SKIP LOCKED passes over rows another claim is taking
     * right now). The lease and the due time are read on the database clock, never on this node's.
     * {@code from} (null: from the start) skips the part of the due index the previous claim
     * already took: while a long transaction keeps deleted rows from being vacuumed, their index
     * entries stay, and a claim that always scanned from the start would walk over all of them.
     *
     * <p>The statement is its own transaction ({@link #ownTransaction}): its locks end when it does, on the
     * database, whatever this node does next.
     */
    @Transactional(TxType.NOT_SUPPORTED)
    public Claim claim(String node, ClaimToken token, int limit, long leaseMillis, OffsetDateTime from, Room room)
            throws SQLException {
        try (Connection con = ownTransaction(dataSource.getConnection());
                PreparedStatement ps = con.prepareStatement(CLAIM)) {
            bind(ps, node, token, limit, leaseMillis, from, room);
            try (ResultSet rs = ps.executeQuery()) {
                List<ClaimedRow> rows = new ArrayList<>(limit);
                boolean windowFull = false;
                OffsetDateTime leftFrom = null;
                OffsetDateTime takenTo = null;
                while (rs.next()) {
                    if (rows.isEmpty()) {
                        windowFull = rs.getLong("window_rows") == window(limit);
                        leftFrom = rs.getObject("left_from", OffsetDateTime.class);
                        takenTo = rs.getObject("taken_to", OffsetDateTime.class);
                    }
                    rows.add(toClaimedRow(rs));
                }
                return new Claim(rows, windowFull, leftFrom, takenTo);
            }
        }
    }

    /** Sets the parameters of {@link #CLAIM}. */
    public static void bind(PreparedStatement ps, String node, ClaimToken token, int limit, long leaseMillis,
            OffsetDateTime from, Room room) throws SQLException {
        Connection con = ps.getConnection();
        int i = 1;
        ps.setObject(i++, from == null ? SCAN_FROM_START : from);
        ps.setArray(i++, uuids(con, room.fullApps().toArray(UUID[]::new)));
        ps.setArray(i++, uuids(con, room.fullTriggers().toArray(UUID[]::new)));
        ps.setInt(i++, window(limit));
        ps.setInt(i++, room.appRoom());
        ps.setInt(i++, room.triggerRoom());
        i = rooms(con, ps, i, room.apps());
        i = rooms(con, ps, i, room.triggers());
        ps.setInt(i++, limit);
        ps.setObject(i++, token.value());
        ps.setString(i++, node);
        ps.setLong(i, leaseMillis);
    }

    /**
     * How many due rows a claim of {@code limit} looks at: room for other apps' rows to be interleaved
     * with one app's, at the price of locking (for one short transaction) rows it may leave.
     */
    public static int window(int limit) {
        return limit + Math.max(1, limit / 2);
    }

    private static int rooms(Connection con, PreparedStatement ps, int i, Map<UUID, Integer> rooms)
            throws SQLException {
        ps.setArray(i, uuids(con, rooms.keySet().toArray(UUID[]::new)));
        ps.setArray(i + 1, con.createArrayOf("integer", rooms.values().toArray(Integer[]::new)));
        return i + 2;
    }

    private static ClaimedRow toClaimedRow(ResultSet rs) throws SQLException {
        String targetType = rs.getString("target_type");
        ClaimedRow.TriggerTarget trigger = targetType == null
                ? null
                : new ClaimedRow.TriggerTarget(targetType, rs.getString("target"), rs.getString("secret"),
                        (Integer) rs.getObject("trigger_max_attempts"),
                        rs.getString("previous_secret"),
                        rs.getObject("previous_secret_expires_at", OffsetDateTime.class),
                        rs.getString("target_key"));
        return new ClaimedRow(
                new OutboxId(rs.getObject("id", UUID.class)),
                new AppId(rs.getObject("app_id", UUID.class)),
                rs.getString("source_kind"),
                TriggerId.ofNullable(rs.getObject("trigger_id", UUID.class)),
                ScriptId.ofNullable(rs.getObject("script_id", UUID.class)),
                OutboxId.ofNullable(rs.getObject("reply_to", UUID.class)),
                rs.getString("payload"),
                rs.getString("origin_principal"),
                rs.getInt("trigger_depth"),
                ExecutionId.ofNullable(rs.getObject("root_execution_id", UUID.class)),
                rs.getInt("attempt_count"),
                (Integer) rs.getObject("max_attempts"),
                rs.getObject("created_at", OffsetDateTime.class),
                rs.getObject("next_attempt_at", OffsetDateTime.class),
                trigger,
                TraceContext.parse(rs.getString("traceparent"), rs.getString("tracestate")),
                Long.MAX_VALUE,
                rs.getString("ordering_key"));
    }

    /**
     * Finishes a window of rows in one transaction: delivered rows move to history, retries are
     * rescheduled, dead rows move to dead letters (and history), released rows become claimable again.
     * Rows whose claim is no longer the one they were delivered under are left alone and counted as fenced.
     *
     * <p>A row cancelled while in flight ({@code cancel_requested}) is finished as its attempt ended when that
     * delivered; otherwise the retry, dead-letter and release statements pass over it and the last statement
     * moves it to history as cancelled. Last, so that a cancel committed while this transaction waited for the
     * row's lock is seen too (each statement reads the newest committed row): its row never stays behind claimed.
     */
    @Transactional(TxType.REQUIRES_NEW)
    public Finished finish(String node, BatchOutcome outcome) throws SQLException {
        try (Connection con = dataSource.getConnection()) {
            Map<String, Integer> delivered = outcome.delivered().isEmpty() ? Map.of() : complete(con, node, outcome);
            Map<String, Integer> retried = outcome.retries().isEmpty() ? Map.of() : reschedule(con, outcome.retries());
            Map<String, Integer> dead = outcome.dead().isEmpty() ? Map.of() : deadLetter(con, node, outcome.dead());
            int released = outcome.released().isEmpty() ? 0 : release(con, outcome.released());
            List<BatchOutcome.Undelivered> undelivered = outcome.undelivered();
            int cancelled = undelivered.isEmpty() ? 0 : cancelRequested(con, undelivered);
            int d = sum(delivered);
            int r = sum(retried);
            int x = sum(dead);
            return new Finished(d, r, x, released, cancelled, outcome.size() - d - r - x - released - cancelled,
                    delivered, retried, dead);
        }
    }

    /** How long an attempt took, in the delivery log: from its claim ({@code claimed_at} of alias {@code c}) to now. */
    private static final String TOOK = "greatest(0, round(extract(epoch FROM now() - c.claimed_at) * 1000))::int";

    /**
     * Rows cancelled while in flight whose attempt is over without a delivery (CTE {@code cancelled}, the deleted
     * outbox rows): to history as cancelled, finished by the node that claimed them, the attempt to the delivery
     * log as cancelled, and the invoke waiting on one answered so.
     */
    private static final String CANCELLED = """
            , cancelled_logged AS (
                INSERT INTO delivery_attempts (outbox_id, attempt, app_id, duration_ms, node, outcome)
                SELECT c.id, c.attempt_count, c.app_id, %s, c.claimed_by, 'cancelled' FROM cancelled c
            ), cancelled_history AS (
                INSERT INTO delivery_history (outbox_id, app_id, source_kind, trigger_id, root_execution_id,
                        trigger_depth, outcome, attempt_count, last_error, created_at, finished_by, parent_id)
                SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth,
                       'cancelled', attempt_count, last_error, created_at, claimed_by, parent_id
                FROM cancelled
            ), cancelled_answered AS (
                INSERT INTO replies (id, app_id, outbox_id, outcome, error)
                SELECT reply_to, app_id, id, 'cancelled', 'cancelled' FROM cancelled WHERE reply_to IS NOT NULL
                ON CONFLICT (id) DO NOTHING
            )
            """.formatted(TOOK);

    /**
     * The rows among {@code undelivered} (retries, dead, released) that were cancelled while in flight and
     * whose claim still holds: to history as cancelled, and their waiting invoke (if any) answered so.
     */
    private static int cancelRequested(Connection con, List<BatchOutcome.Undelivered> rows) throws SQLException {
        String sql = """
                WITH cancelled AS (
                    DELETE FROM outbox o
                    USING unnest(?::uuid[], ?::uuid[]) AS f(id, token)   -- 1, 2: rows and their claims' tokens
                    WHERE o.id = f.id
                      AND o.claim_token = f.token
                      AND o.cancel_requested
                      -- the lease still holds; an expression, so that no plan is driven by the lease index
                      AND o.lease_expires_at - now() > interval '0'
                    RETURNING o.*
                )""" + CANCELLED + """
                SELECT count(*) FROM cancelled
                """;
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setArray(1, uuids(con, rows.stream().map(r -> r.id().value()).toArray(UUID[]::new)));
            ps.setArray(2, uuids(con, rows.stream().map(r -> r.token().value()).toArray(UUID[]::new)));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static int sum(Map<String, Integer> byKind) {
        return byKind.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Reads (source_kind, count) rows. */
    private static Map<String, Integer> byKind(PreparedStatement ps) throws SQLException {
        Map<String, Integer> counts = new HashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                counts.merge(rs.getString(1), rs.getInt(2), Integer::sum);
            }
        }
        return counts;
    }

    private static Map<String, Integer> complete(Connection con, String node, BatchOutcome outcome)
            throws SQLException {
        String sql = """
                WITH done AS (
                    DELETE FROM outbox o
                    USING unnest(?::uuid[], ?::uuid[]) AS f(id, token)   -- 1, 2: delivered rows and their claims' tokens
                    WHERE o.id = f.id
                      AND o.claim_token = f.token
                      -- the lease still holds; an expression, so that no plan is driven by the lease index (the rows
                      -- are found by primary key, whatever the statistics say about leases)
                      AND o.lease_expires_at - now() > interval '0'
                    RETURNING o.id, o.app_id, o.source_kind, o.trigger_id, o.root_execution_id, o.trigger_depth,
                              o.attempt_count, o.created_at, o.reply_to, o.parent_id, o.claimed_at
                ), history AS (
                    -- the delivering attempt's entry of the delivery log, too: when it was claimed, what a webhook answered
                    INSERT INTO delivery_history (outbox_id, app_id, source_kind, trigger_id, root_execution_id,
                            trigger_depth, outcome, attempt_count, last_error, created_at, finished_by, parent_id,
                            claimed_at, http_status)
                    SELECT d.id, d.app_id, d.source_kind, d.trigger_id, d.root_execution_id, d.trigger_depth,
                           'delivered', d.attempt_count, NULL, d.created_at, ?,  -- 3: node name
                           d.parent_id, d.claimed_at, a.status
                    FROM done d LEFT JOIN unnest(?::uuid[], ?::int[]) AS a(id, status) ON a.id = d.id  -- 4, 5: HTTP statuses
                ), answered AS (
                    INSERT INTO replies (id, app_id, outbox_id, outcome, body)
                    SELECT d.reply_to, d.app_id, d.id, 'delivered', r.body
                    FROM done d JOIN unnest(?::uuid[], ?::text[]) AS r(id, body) ON r.id = d.id  -- 6, 7: replies
                    WHERE d.reply_to IS NOT NULL
                    ON CONFLICT (id) DO NOTHING
                )
                SELECT source_kind, count(*) FROM done GROUP BY source_kind
                """;
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            List<BatchOutcome.Delivered> rows = outcome.delivered();
            ps.setArray(1, uuids(con, rows.stream().map(r -> r.id().value()).toArray(UUID[]::new)));
            ps.setArray(2, uuids(con, rows.stream().map(r -> r.token().value()).toArray(UUID[]::new)));
            ps.setString(3, node);
            // statuses only of the rows that have one (webhooks): a handler drain passes two empty arrays
            List<BatchOutcome.Delivered> answered = rows.stream().filter(r -> r.attempt().httpStatus() != null)
                    .toList();
            ps.setArray(4, uuids(con, answered.stream().map(r -> r.id().value()).toArray(UUID[]::new)));
            ps.setArray(5, con.createArrayOf("integer",
                    answered.stream().map(r -> r.attempt().httpStatus()).toArray(Integer[]::new)));
            ps.setArray(6, uuids(con, outcome.replies().stream().map(r -> r.id().value()).toArray(UUID[]::new)));
            ps.setArray(7, con.createArrayOf("text",
                    outcome.replies().stream().map(BatchOutcome.Reply::body).toArray(String[]::new)));
            return byKind(ps);
        }
    }

    private static Map<String, Integer> reschedule(Connection con, List<BatchOutcome.Retry> retries)
            throws SQLException {
        String sql = """
                WITH r AS (
                    SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::bigint[], ?::text[], ?::int[], ?::text[])  -- 1..6
                        AS r(id, token, delay_ms, error, status, answer)
                ), claimed AS (
                    -- the claims as they were before this statement (every part of it reads the same snapshot)
                    SELECT o.id, o.claimed_at, o.claimed_by FROM outbox o JOIN r ON o.id = r.id
                ), retried AS (
                UPDATE outbox o
                SET next_attempt_at = now() + r.delay_ms * interval '1 millisecond',
                    last_error = r.error,
                    claim_token = NULL, claimed_at = NULL, claimed_by = NULL, lease_expires_at = NULL
                FROM r
                WHERE o.id = r.id
                  AND o.claim_token = r.token
                  AND NOT o.cancel_requested                           -- cancelled in flight: finished as cancelled
                  -- the lease still holds; an expression, so that no plan is driven by the lease index (the rows
                  -- are found by primary key, whatever the statistics say about leases)
                  AND o.lease_expires_at - now() > interval '0'
                RETURNING o.id, o.app_id, o.attempt_count, o.source_kind, r.error, r.status, r.answer
                ), logged AS (
                    INSERT INTO delivery_attempts (outbox_id, attempt, app_id, duration_ms, node, outcome, http_status, error, answer)
                    SELECT x.id, x.attempt_count, x.app_id, %s, c.claimed_by, 'failed', x.status, x.error, x.answer
                    FROM retried x JOIN claimed c ON c.id = x.id
                )
                SELECT source_kind, count(*) FROM retried GROUP BY source_kind
                """.formatted(TOOK);
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setArray(1, uuids(con, retries.stream().map(r -> r.id().value()).toArray(UUID[]::new)));
            ps.setArray(2, uuids(con, retries.stream().map(r -> r.token().value()).toArray(UUID[]::new)));
            ps.setArray(3, con.createArrayOf("bigint",
                    retries.stream().map(BatchOutcome.Retry::delayMillis).toArray(Long[]::new)));
            ps.setArray(4,
                    con.createArrayOf("text", retries.stream().map(BatchOutcome.Retry::error).toArray(String[]::new)));
            ps.setArray(5, con.createArrayOf("integer",
                    retries.stream().map(r -> r.attempt().httpStatus()).toArray(Integer[]::new)));
            ps.setArray(6,
                    con.createArrayOf("text", retries.stream().map(r -> r.attempt().answer()).toArray(String[]::new)));
            return byKind(ps);
        }
    }

    /** Rows that were claimed but never started: the claim is undone and its attempt given back. */
    private static int release(Connection con, List<BatchOutcome.Released> released) throws SQLException {
        String sql = """
                UPDATE outbox o
                SET claim_token = NULL, claimed_at = NULL, claimed_by = NULL, lease_expires_at = NULL,
                    attempt_count = greatest(o.attempt_count - 1, 0),
                    next_attempt_at = now()    -- due again now: in front of every claimer's cursor
                FROM unnest(?::uuid[], ?::uuid[]) AS r(id, token)        -- 1, 2: rows and their claims' tokens
                WHERE o.id = r.id
                  AND o.claim_token = r.token
                  AND NOT o.cancel_requested                           -- cancelled in flight: finished as cancelled
                  -- the lease still holds; an expression, so that no plan is driven by the lease index (the rows
                  -- are found by primary key, whatever the statistics say about leases)
                  AND o.lease_expires_at - now() > interval '0'
                """;
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setArray(1, uuids(con, released.stream().map(r -> r.id().value()).toArray(UUID[]::new)));
            ps.setArray(2, uuids(con, released.stream().map(r -> r.token().value()).toArray(UUID[]::new)));
            return ps.executeUpdate();
        }
    }

    private static Map<String, Integer> deadLetter(Connection con, String node, List<BatchOutcome.Dead> dead)
            throws SQLException {
        String sql = """
                WITH dead AS (
                    DELETE FROM outbox o
                    USING unnest(?::uuid[], ?::uuid[], ?::text[], ?::boolean[], ?::int[], ?::text[])  -- 1..6: rows, tokens, reasons, 410s, statuses, answers
                        AS d(id, token, error, disable, status, answer)
                    WHERE o.id = d.id
                      AND o.claim_token = d.token
                      AND NOT o.cancel_requested                           -- cancelled in flight: finished as cancelled
                      -- the lease still holds; an expression, so that no plan is driven by the lease index (the rows
                      -- are found by primary key, whatever the statistics say about leases)
                      AND o.lease_expires_at - now() > interval '0'
                    RETURNING o.*, d.error, d.disable, d.status, d.answer
                ), logged AS (
                    INSERT INTO delivery_attempts (outbox_id, attempt, app_id, duration_ms, node, outcome, http_status, error, answer)
                    SELECT c.id, c.attempt_count, c.app_id, %s, c.claimed_by, 'dead', c.status, c.error, c.answer FROM dead c
                ), gone AS (
                    -- a target that answered 410 Gone: its trigger is disabled only with a row this claim still held,
                    -- so a late (fenced) 410 disables nothing
                    UPDATE triggers t SET enabled = false, updated_at = now()
                    FROM (SELECT DISTINCT app_id, trigger_id FROM dead WHERE disable) g
                    WHERE t.id = g.trigger_id AND t.app_id = g.app_id AND t.enabled
                ), answered AS (
                    INSERT INTO replies (id, app_id, outbox_id, outcome, error)
                    SELECT reply_to, app_id, id, 'dead', error FROM dead WHERE reply_to IS NOT NULL
                    ON CONFLICT (id) DO NOTHING
                ), told AS (
                    -- the app's dead_letter triggers hear of it, in this same transaction; a dead
                    -- letter about a dead_letter row tells no one (no cascade)
                    INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, payload, origin_principal,
                                        trigger_depth, root_execution_id, parent_id, traceparent, tracestate)
                    SELECT gen_random_uuid(), t.app_id, 'dead_letter', t.id, t.script_id,
                           jsonb_build_object('deadLetter', jsonb_build_object(
                               'id', d.id, 'appId', d.app_id, 'sourceKind', d.source_kind, 'triggerId', d.trigger_id,
                               'attemptCount', d.attempt_count, 'lastError', d.error, 'payload', d.payload,
                               'rootExecutionId', d.root_execution_id, 'triggerDepth', d.trigger_depth,
                               'createdAt', d.created_at, 'deadAt', now())),
                           'dead-letter', d.trigger_depth + 1, coalesce(d.root_execution_id, d.id), d.id,
                           d.traceparent, d.tracestate                   -- the dead letter joins the row's trace
                    FROM dead d JOIN triggers t
                      ON t.app_id = d.app_id AND t.source_kind = 'dead_letter' AND t.enabled
                    WHERE d.source_kind <> 'dead_letter'
                ), history AS (
                    INSERT INTO delivery_history (outbox_id, app_id, source_kind, trigger_id, root_execution_id,
                            trigger_depth, outcome, attempt_count, last_error, created_at, finished_by, parent_id)
                    SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth,
                           'dead', attempt_count, error, created_at, ?,  -- 7: node name
                           parent_id
                    FROM dead
                ), kept AS (
                    INSERT INTO dead_letters (id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                            origin_principal, trigger_depth, root_execution_id, attempt_count, last_error,
                            created_at, dead_by, parent_id, max_attempts, traceparent, tracestate,
                            ordering_key, lane_seq)
                    SELECT id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                           origin_principal, trigger_depth, root_execution_id, attempt_count, error,
                           created_at, ?,                                -- 8: node name
                           parent_id, max_attempts, traceparent, tracestate,
                           ordering_key, lane_seq                        -- replayed, it heads its lane again
                    FROM dead
                    ON CONFLICT (id) DO UPDATE SET attempt_count = excluded.attempt_count,
                           last_error = excluded.last_error, dead_at = excluded.dead_at, dead_by = excluded.dead_by,
                           max_attempts = excluded.max_attempts, traceparent = excluded.traceparent,
                           tracestate = excluded.tracestate, ordering_key = excluded.ordering_key,
                           lane_seq = excluded.lane_seq
                ), blocked AS (
                    -- the lane of a trigger with "onDeadLetter":"block" stops behind its dead head until an operator
                    -- skips it or replays it (the block goes with its dead letter; checked at the statement's end,
                    -- when the dead letter above is there)
                    INSERT INTO lane_blocks (lane, ordering_key, app_id, dead_letter_id)
                    SELECT coalesce(d.trigger_id, d.app_id), d.ordering_key, d.app_id, d.id
                    FROM dead d JOIN triggers t ON t.id = d.trigger_id AND t.app_id = d.app_id
                    WHERE d.ordering_key IS NOT NULL AND t.on_dead_letter = 'block'
                    ON CONFLICT (lane, ordering_key) DO NOTHING
                )
                SELECT source_kind, count(*) FROM dead GROUP BY source_kind
                """.formatted(TOOK);
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setArray(1, uuids(con, dead.stream().map(d -> d.id().value()).toArray(UUID[]::new)));
            ps.setArray(2, uuids(con, dead.stream().map(d -> d.token().value()).toArray(UUID[]::new)));
            ps.setArray(3,
                    con.createArrayOf("text", dead.stream().map(BatchOutcome.Dead::error).toArray(String[]::new)));
            ps.setArray(4, con.createArrayOf("boolean",
                    dead.stream().map(BatchOutcome.Dead::disableTrigger).toArray(Boolean[]::new)));
            ps.setArray(5, con.createArrayOf("integer",
                    dead.stream().map(d -> d.attempt().httpStatus()).toArray(Integer[]::new)));
            ps.setArray(6,
                    con.createArrayOf("text", dead.stream().map(d -> d.attempt().answer()).toArray(String[]::new)));
            ps.setString(7, node);
            ps.setString(8, node);
            return byKind(ps);
        }
    }

    /** What one look for expired leases did: rows made claimable again, and the database time it looked up to. */
    public record Recovered(int rows, OffsetDateTime lookedUpTo) {
    }

    /**
     * Makes rows whose lease expired claimable again (their node died or stalled). Their attempt was
     * already counted at claim, so a row that kills its node every time still runs out of attempts.
     * {@code after} (null: from the start) skips the leases that expired before the previous look ended:
     * while a long transaction keeps deleted rows from being vacuumed, the lease index keeps an entry
     * of every row claimed since, all of them expired, and a look from the start would walk them all.
     */
    @Transactional(TxType.NOT_SUPPORTED)
    public Recovered recoverExpiredLeases(int limit, OffsetDateTime after) throws SQLException {
        String sql = """
                WITH expired AS (
                    SELECT id, app_id, attempt_count, claimed_at, claimed_by FROM outbox
                    WHERE claim_token IS NOT NULL AND lease_expires_at <= now()
                      AND lease_expires_at > ?                           -- 1: where the previous look ended
                    ORDER BY lease_expires_at
                    LIMIT ?                                              -- 2: at most this many
                    FOR UPDATE SKIP LOCKED
                ), recovered AS (
                    UPDATE outbox o
                    SET claim_token = NULL, claimed_at = NULL, claimed_by = NULL, lease_expires_at = NULL,
                        next_attempt_at = now(),   -- due again now: in front of every claimer's cursor
                        last_error = 'lease of ' || o.claimed_by || ' expired during attempt ' || o.attempt_count
                    WHERE o.id = ANY (ARRAY(SELECT id FROM expired)) AND NOT o.cancel_requested
                    RETURNING o.id, o.last_error
                ), logged AS (
                    -- the attempt that never reported: to the delivery log as failed, with why
                    INSERT INTO delivery_attempts (outbox_id, attempt, app_id, duration_ms, node, outcome, error)
                    SELECT c.id, c.attempt_count, c.app_id, %s, c.claimed_by, 'failed', r.last_error
                    FROM recovered r JOIN expired c ON c.id = r.id
                ), cancelled AS (
                    -- cancelled while in flight, and its node never finished it: the attempt is over, so is the row
                    DELETE FROM outbox o
                    WHERE o.id = ANY (ARRAY(SELECT id FROM expired)) AND o.cancel_requested
                    RETURNING o.*
                )""".formatted(TOOK) + CANCELLED + """
                SELECT (SELECT count(*) FROM recovered) + (SELECT count(*) FROM cancelled), now()
                """;
        try (Connection con = ownTransaction(dataSource.getConnection());
                PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setObject(1, after == null ? SCAN_FROM_START : after);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Recovered(rs.getInt(1), rs.getObject(2, OffsetDateTime.class));
            }
        }
    }

    /**
     * {@code con} in auto-commit, for a statement that locks rows it may not keep: the database commits it as
     * it ends. A claim that loses a race for a row keeps its lock on that row (PostgreSQL locks the newest
     * version before it sees that another claim took it) until its transaction ends. Ended by this node's
     * commit, that would be as late as this node is: a node stopped or paused between statement and commit
     * held the rows of the claim that won, whose finishing statement (and every finish queued behind it on
     * that node) then waited until their lease had expired and they were delivered again (fault scenario 3,
     * docs/GUARANTEES.md). The expired-lease recovery is the same kind of statement.
     */
    static Connection ownTransaction(Connection con) throws SQLException {
        if (!con.getAutoCommit()) {
            con.setAutoCommit(true); // no transaction is open here (NOT_SUPPORTED): nothing is committed by this
        }
        return con;
    }

    private static Array uuids(Connection con, UUID[] ids) throws SQLException {
        return con.createArrayOf("uuid", ids);
    }
}
