package dev.triggeroutbox.console.control;

import dev.triggeroutbox.console.entity.DeadLetter;
import dev.triggeroutbox.console.entity.DeadLetterGroup;
import dev.triggeroutbox.console.entity.KeptDeadLetter;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Dead letters for the admin API: pages newest first, one in full, the groups of one failure, replay and discard
 * (one, or all that match).
 */
@ApplicationScoped
public class DeadLetters {

    /** What a bulk replay or discard did: the rows it replayed or discarded, and whether more still match. */
    public record Replayed(List<UUID> ids, boolean more) {
    }

    /** A page of dead letters, and where the next starts (null: none). */
    public record Page(List<DeadLetter> items, PageCursor next) {
    }

    /** A page of groups, and the offset the next starts at (null: none). */
    public record Groups(List<DeadLetterGroup> items, Integer nextOffset) {
    }

    /** The most groups one page holds, and the furthest a page may start: groups are counted anew for each page. */
    public static final int MAX_GROUP_OFFSET = 100_000;

    @Inject
    DataSource dataSource;

    /**
     * Most payload bytes (as stored text) one page holds. Rows alone do not bound a page: 500 payloads of
     * 256 KiB would be 125 MiB in the driver and again as JSON. A page stops at the row that takes it past
     * this bound and says there is more, so it holds at most the bound plus one payload; 4 MiB is 16
     * payloads of the largest default size, and thousands of ordinary ones.
     */
    public static final long PAGE_PAYLOAD_BYTES = 4L << 20;

    public Page page(DeadLetterFilter filter, int limit, PageCursor after) throws SQLException {
        return page(filter, limit, after, PAGE_PAYLOAD_BYTES);
    }

    /**
     * A page of at most {@code limit} rows, ending early after the row whose payload takes the page past
     * {@code maxPayloadBytes}. Rows after that one come without their payload (never read into memory):
     * the first of them only says that another page exists.
     */
    Page page(DeadLetterFilter filter, int limit, PageCursor after, long maxPayloadBytes) throws SQLException {
        String sql = """
                SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth, attempt_count,
                       last_error, created_at, dead_at, ordering_key,
                       CASE WHEN bytes_before < ? THEN payload END AS payload,        -- 1: byte bound
                       bytes_before < ? AS fits                                       -- 2: byte bound
                FROM (
                    SELECT c.*, coalesce(sum(octet_length(c.payload)) OVER (ORDER BY c.dead_at DESC, c.id DESC
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS bytes_before
                    FROM (
                        SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth, attempt_count,
                               last_error, created_at, dead_at, ordering_key, payload::text AS payload
                        FROM dead_letters
                        WHERE %s                                                      -- 3..14: filter
                          AND (?::timestamptz IS NULL OR (dead_at, id) < (?::timestamptz, ?::uuid))  -- 15..17: cursor
                        ORDER BY dead_at DESC, id DESC
                        LIMIT ?                                                       -- 18: page size + 1
                    ) c
                ) w
                ORDER BY dead_at DESC, id DESC
                """.formatted(DeadLetterFilter.WHERE);
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setLong(1, maxPayloadBytes);
            ps.setLong(2, maxPayloadBytes);
            int i = filter.bind(ps, 3);
            ps.setObject(i, after == null ? null : after.at(), Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(i + 1, after == null ? null : after.at(), Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(i + 2, after == null ? null : after.id(), Types.OTHER);
            ps.setInt(i + 3, limit + 1);
            List<DeadLetter> items = new ArrayList<>();
            boolean more = false;
            try (ResultSet rs = ps.executeQuery()) {
                for (int n = 0; rs.next(); n++) {
                    if (n == limit || !rs.getBoolean("fits")) {
                        more = true; // the extra row only says that another page exists
                        break;
                    }
                    items.add(summary(rs));
                }
            }
            DeadLetter last = more ? items.get(items.size() - 1) : null;
            return new Page(items, last == null ? null : new PageCursor(last.deadAt(), last.id().value()));
        }
    }

    /** One dead letter with everything kept about it, and its trigger's target when the trigger still exists. */
    public Optional<KeptDeadLetter> find(OutboxId id) throws SQLException {
        String sql = """
                SELECT d.id, d.app_id, d.source_kind, d.trigger_id, d.root_execution_id, d.trigger_depth,
                       d.attempt_count, d.last_error, d.created_at, d.dead_at, d.ordering_key, d.payload::text AS payload,
                       d.script_id, d.reply_to, d.origin_principal, d.dead_by, d.max_attempts,
                       t.target_type, t.target, t.enabled AS trigger_enabled
                FROM dead_letters d LEFT JOIN triggers t ON t.id = d.trigger_id AND t.app_id = d.app_id
                WHERE d.id = ?                                                        -- 1
                """;
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setObject(1, id.value());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                String targetType = rs.getString("target_type");
                return Optional.of(new KeptDeadLetter(summary(rs), ScriptId.ofNullable(rs.getObject("script_id", UUID.class)),
                        rs.getObject("reply_to", UUID.class), rs.getString("origin_principal"), rs.getString("dead_by"),
                        (Integer) rs.getObject("max_attempts"), targetType == null ? null
                                : new KeptDeadLetter.Target(targetType, rs.getString("target"), rs.getBoolean("trigger_enabled"))));
            }
        }
    }

    private static DeadLetter summary(ResultSet rs) throws SQLException {
        return new DeadLetter(new OutboxId(rs.getObject("id", UUID.class)), new AppId(rs.getObject("app_id", UUID.class)),
                rs.getString("source_kind"), rs.getInt("attempt_count"), rs.getInt("trigger_depth"),
                rs.getString("last_error"), rs.getObject("created_at", OffsetDateTime.class),
                rs.getObject("dead_at", OffsetDateTime.class), TriggerId.ofNullable(rs.getObject("trigger_id", UUID.class)),
                ExecutionId.ofNullable(rs.getObject("root_execution_id", UUID.class)), rs.getString("ordering_key"),
                rs.getString("payload"));
    }

    /**
     * Moves dead letters back into the outbox under their own ids, due now, attempts reset, with the
     * attempt budget the row had (null: its trigger's, or the default) and the trace context it was written
     * with. The answer "dead" stored
     * for a revived invoke goes, so its caller waits for the new attempt's answer.
     */
    private static final String REVIVE = """
            , forgotten AS (
                -- an invoke's answer was its dead letter: the revived row is to answer anew
                DELETE FROM replies WHERE outcome = 'dead' AND id IN (SELECT reply_to FROM revived)
            )
            INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                                origin_principal, trigger_depth, root_execution_id, parent_id, max_attempts, last_error,
                                traceparent, tracestate, ordering_key, lane_seq)
            SELECT id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                   origin_principal, trigger_depth, root_execution_id, parent_id, max_attempts,
                   'replayed by ' || ? || ' after: ' || last_error,                 -- admin
                   traceparent, tracestate,                                         -- the replay joins the row's trace
                   -- its lane and place (null for dead letters from before V20: a place of their own, next)
                   ordering_key, coalesce(lane_seq, nextval('outbox_lane_seq'))
            FROM revived
            RETURNING id
            """;

    /** Puts one dead letter back into the outbox; false when there is no such dead letter. */
    @Transactional(Transactional.TxType.REQUIRED)
    public boolean replay(OutboxId id, String by) throws SQLException {
        String sql = """
                WITH revived AS (
                    DELETE FROM dead_letters WHERE id = ?                             -- 1
                    RETURNING *
                )
                """ + REVIVE;                                                         // 2: admin
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setObject(1, id.value());
            ps.setString(2, by);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** The dead letters a bulk replay or discard takes: up to a limit that match, oldest first, skipping those another admin holds. */
    private static final String PICKED = """
            WITH picked AS (
                SELECT id FROM dead_letters
                WHERE %s                                                              -- 1..12: filter
                ORDER BY dead_at, id
                LIMIT ?                                                               -- 13
                FOR UPDATE SKIP LOCKED
            )
            """.formatted(DeadLetterFilter.WHERE);

    /**
     * Puts up to {@code limit} dead letters that match back into the outbox, oldest first, in one
     * statement; dead letters another admin is replaying or discarding right now are skipped.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Replayed replayMatching(DeadLetterFilter filter, int limit, String by) throws SQLException {
        String sql = PICKED + """
                , revived AS (
                    DELETE FROM dead_letters d USING picked WHERE d.id = picked.id
                    RETURNING d.*
                )
                """ + REVIVE;                                                         // 12: admin
        List<UUID> ids = new ArrayList<>();
        try (Connection con = dataSource.getConnection()) {
            try (PreparedStatement ps = con.prepareStatement(sql)) {
                int i = filter.bind(ps, 1);
                ps.setInt(i, limit);
                ps.setString(i + 1, by);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1, UUID.class));
                    }
                }
            }
            return new Replayed(ids, matches(con, filter));
        }
    }

    /**
     * The dead letters that match, grouped by app, trigger, source kind and failure ({@code outbox_error_group}), the
     * largest groups first: each with its count, when it was first and last seen and its newest row's id and error.
     * {@code offset} groups are skipped (the next page's cursor); the groups are counted anew for each page, so a page
     * taken while rows die or are replayed may repeat or miss a group.
     */
    public Groups groups(DeadLetterFilter filter, int limit, int offset) throws SQLException {
        String sql = """
                WITH g AS (
                    SELECT app_id, trigger_id, source_kind, outbox_error_group(last_error) AS error_group,
                           count(*) AS n, min(dead_at) AS first_seen, max(dead_at) AS last_seen
                    FROM dead_letters
                    WHERE %s                                                          -- 1..12: filter
                    GROUP BY 1, 2, 3, 4
                    ORDER BY n DESC, last_seen DESC, app_id, trigger_id NULLS FIRST, source_kind, error_group
                    LIMIT ? OFFSET ?                                                  -- 13: page size + 1, 14: offset
                )
                SELECT g.*, s.id AS sample_id, s.last_error AS sample_error
                FROM g CROSS JOIN LATERAL (
                    -- the group's newest row, through dead_letters_app (app_id, dead_at DESC, id)
                    SELECT d.id, d.last_error FROM dead_letters d
                    WHERE d.app_id = g.app_id AND d.dead_at = g.last_seen
                      AND d.trigger_id IS NOT DISTINCT FROM g.trigger_id AND d.source_kind = g.source_kind
                      AND outbox_error_group(d.last_error) = g.error_group
                    ORDER BY d.id LIMIT 1
                ) s
                ORDER BY g.n DESC, g.last_seen DESC, g.app_id, g.trigger_id NULLS FIRST, g.source_kind, g.error_group
                """.formatted(DeadLetterFilter.WHERE);
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            int i = filter.bind(ps, 1);
            ps.setInt(i, limit + 1);
            ps.setInt(i + 1, offset);
            List<DeadLetterGroup> items = new ArrayList<>();
            boolean more = false;
            try (ResultSet rs = ps.executeQuery()) {
                for (int n = 0; rs.next(); n++) {
                    if (n == limit) {
                        more = true;
                        break;
                    }
                    items.add(new DeadLetterGroup(new AppId(rs.getObject("app_id", UUID.class)),
                            TriggerId.ofNullable(rs.getObject("trigger_id", UUID.class)), rs.getString("source_kind"),
                            rs.getString("error_group"), rs.getLong("n"), rs.getObject("first_seen", OffsetDateTime.class),
                            rs.getObject("last_seen", OffsetDateTime.class), new OutboxId(rs.getObject("sample_id", UUID.class)),
                            rs.getString("sample_error")));
                }
            }
            return new Groups(items, more && offset + limit <= MAX_GROUP_OFFSET ? offset + limit : null);
        }
    }

    /**
     * Discards up to {@code limit} dead letters that match, oldest first, in one statement; dead letters another
     * admin is replaying or discarding right now are skipped. A waiting invoke's stored answer stays.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Replayed discardMatching(DeadLetterFilter filter, int limit) throws SQLException {
        String sql = PICKED + """
                DELETE FROM dead_letters d USING picked WHERE d.id = picked.id
                RETURNING d.id
                """;
        List<UUID> ids = new ArrayList<>();
        try (Connection con = dataSource.getConnection()) {
            try (PreparedStatement ps = con.prepareStatement(sql)) {
                ps.setInt(filter.bind(ps, 1), limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1, UUID.class));
                    }
                }
            }
            return new Replayed(ids, matches(con, filter));
        }
    }

    private static boolean matches(Connection con, DeadLetterFilter filter) throws SQLException {
        try (PreparedStatement ps = con.prepareStatement(
                "SELECT EXISTS (SELECT 1 FROM dead_letters WHERE " + DeadLetterFilter.WHERE + ")")) { // 1..12
            filter.bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public boolean discard(OutboxId id) throws SQLException {
        try (Connection con = dataSource.getConnection();
                PreparedStatement ps = con.prepareStatement("DELETE FROM dead_letters WHERE id = ?")) { // 1
            ps.setObject(1, id.value());
            return ps.executeUpdate() == 1;
        }
    }
}
