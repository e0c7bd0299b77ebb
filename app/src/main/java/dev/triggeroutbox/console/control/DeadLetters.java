package dev.triggeroutbox.console.control;

import dev.triggeroutbox.console.entity.DeadLetter;
import dev.triggeroutbox.console.entity.DeadLetterGroup;
import dev.triggeroutbox.console.entity.KeptDeadLetter;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Where;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

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
    Jdbc jdbc;

    /**
     * Most payload bytes (as stored text) one page holds. Rows alone do not bound a page: 500 payloads of
     * 256 KiB would be 125 MiB in the driver and again as JSON. A page stops at the row that takes it past
     * this bound and says there is more, so it holds at most the bound plus one payload; 4 MiB is 16
     * payloads of the largest default size, and thousands of ordinary ones.
     */
    public static final long PAGE_PAYLOAD_BYTES = 4L << 20;

    public Page page(DeadLetterFilter filter, int limit, PageCursor after) {
        return page(filter, limit, after, PAGE_PAYLOAD_BYTES);
    }

    /**
     * A page of at most {@code limit} rows, ending early after the row whose payload takes the page past
     * {@code maxPayloadBytes}. Rows after that one come without their payload (never read into memory):
     * the first of them only says that another page exists.
     */
    Page page(DeadLetterFilter filter, int limit, PageCursor after, long maxPayloadBytes) {
        Where where = filter.where()
                .and(after != null, "(dead_at, id) < (?, ?)", p -> p.timestamp(after.at()).uuid(after.id()));  // the cursor
        String sql = """
                SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth, attempt_count,
                       last_error, created_at, dead_at, ordering_key,
                       CASE WHEN bytes_before < ? THEN payload END AS payload,        -- byte bound
                       bytes_before < ? AS fits                                       -- byte bound
                FROM (
                    SELECT c.*, coalesce(sum(octet_length(c.payload)) OVER (ORDER BY c.dead_at DESC, c.id DESC
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS bytes_before
                    FROM (
                        SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth, attempt_count,
                               last_error, created_at, dead_at, ordering_key, payload::text AS payload
                        FROM dead_letters
                        WHERE %s                                                      -- filter, cursor
                        ORDER BY dead_at DESC, id DESC
                        LIMIT ?                                                       -- page size + 1
                    ) c
                ) w
                ORDER BY dead_at DESC, id DESC
                """.formatted(where.sql());
        // a row that does not fit is read without its payload (null); it and the extra row only say that another page exists
        List<DeadLetter> read = jdbc.list(sql,
                p -> p.bigint(maxPayloadBytes).bigint(maxPayloadBytes).where(where).integer(limit + 1),
                rs -> rs.getBoolean("fits") ? summary(rs) : null);
        List<DeadLetter> items = read.stream().takeWhile(Objects::nonNull).limit(limit).toList();
        DeadLetter last = items.size() < read.size() ? items.get(items.size() - 1) : null;
        return new Page(items, last == null ? null : new PageCursor(last.deadAt(), last.id().value()));
    }

    /** One dead letter with everything kept about it, and its trigger's target when the trigger still exists. */
    public Optional<KeptDeadLetter> find(OutboxId id) {
        String sql = """
                SELECT d.id, d.app_id, d.source_kind, d.trigger_id, d.root_execution_id, d.trigger_depth,
                       d.attempt_count, d.last_error, d.created_at, d.dead_at, d.ordering_key, d.payload::text AS payload,
                       d.script_id, d.reply_to, d.origin_principal, d.dead_by, d.max_attempts,
                       t.target_type, t.target, t.enabled AS trigger_enabled
                FROM dead_letters d LEFT JOIN triggers t ON t.id = d.trigger_id AND t.app_id = d.app_id
                WHERE d.id = ?
                """;
        return jdbc.first(sql, p -> p.uuid(id.value()), rs -> {
            String targetType = rs.getString("target_type");
            return new KeptDeadLetter(summary(rs), ScriptId.ofNullable(rs.getObject("script_id", UUID.class)),
                    rs.getObject("reply_to", UUID.class), rs.getString("origin_principal"), rs.getString("dead_by"),
                    (Integer) rs.getObject("max_attempts"), targetType == null
                            ? null
                            : new KeptDeadLetter.Target(targetType, rs.getString("target"),
                                    rs.getBoolean("trigger_enabled")));
        });
    }

    private static DeadLetter summary(ResultSet rs) throws SQLException {
        return new DeadLetter(new OutboxId(rs.getObject("id", UUID.class)),
                new AppId(rs.getObject("app_id", UUID.class)),
                rs.getString("source_kind"), rs.getInt("attempt_count"), rs.getInt("trigger_depth"),
                rs.getString("last_error"), rs.getObject("created_at", OffsetDateTime.class),
                rs.getObject("dead_at", OffsetDateTime.class),
                TriggerId.ofNullable(rs.getObject("trigger_id", UUID.class)),
                ExecutionId.ofNullable(rs.getObject("root_execution_id", UUID.class)), rs.getString("ordering_key"),
                rs.getString("payload"));
    }

    /** Puts one dead letter back into the outbox ({@link OutboxWriter#revive}); false when there is no such dead letter. */
    @Transactional(Transactional.TxType.REQUIRED)
    public boolean replay(OutboxId id, String by) {
        return !jdbc.inConnection(con -> OutboxWriter.revive(con, """
                WITH revived AS (
                    DELETE FROM dead_letters WHERE id = ?
                    RETURNING *
                )
                """, p -> p.uuid(id.value()), by)).isEmpty();
    }

    /** The dead letters a bulk replay or discard takes: up to a limit that match, oldest first, skipping those another admin holds. */
    private static String picked(Where where) {
        return """
                WITH picked AS (
                    SELECT id FROM dead_letters
                    WHERE %s                                                          -- filter
                    ORDER BY dead_at, id
                    LIMIT ?
                    FOR UPDATE SKIP LOCKED
                )
                """.formatted(where.sql());
    }

    /**
     * Puts up to {@code limit} dead letters that match back into the outbox, oldest first, in one
     * statement; dead letters another admin is replaying or discarding right now are skipped.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Replayed replayMatching(DeadLetterFilter filter, int limit, String by) {
        Where where = filter.where();
        String revived = picked(where) + """
                , revived AS (
                    DELETE FROM dead_letters d USING picked WHERE d.id = picked.id
                    RETURNING d.*
                )
                """;
        return taken(con -> OutboxWriter.revive(con, revived, p -> p.where(where).integer(limit), by), where);
    }

    /**
     * The dead letters that match, grouped by app, trigger, source kind and failure ({@code outbox_error_group}), the
     * largest groups first: each with its count, when it was first and last seen and its newest row's id and error.
     * {@code offset} groups are skipped (the next page's cursor); the groups are counted anew for each page, so a page
     * taken while rows die or are replayed may repeat or miss a group.
     */
    public Groups groups(DeadLetterFilter filter, int limit, int offset) {
        Where where = filter.where();
        String sql = """
                WITH g AS (
                    SELECT app_id, trigger_id, source_kind, outbox_error_group(last_error) AS error_group,
                           count(*) AS n, min(dead_at) AS first_seen, max(dead_at) AS last_seen
                    FROM dead_letters
                    WHERE %s                                                          -- filter
                    GROUP BY 1, 2, 3, 4
                    ORDER BY n DESC, last_seen DESC, app_id, trigger_id NULLS FIRST, source_kind, error_group
                    LIMIT ? OFFSET ?                                                  -- page size + 1, offset
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
                """.formatted(where.sql());
        List<DeadLetterGroup> read = jdbc.list(sql, p -> p.where(where).integer(limit + 1).integer(offset),
                rs -> new DeadLetterGroup(new AppId(rs.getObject("app_id", UUID.class)),
                        TriggerId.ofNullable(rs.getObject("trigger_id", UUID.class)), rs.getString("source_kind"),
                        rs.getString("error_group"), rs.getLong("n"), rs.getObject("first_seen", OffsetDateTime.class),
                        rs.getObject("last_seen", OffsetDateTime.class),
                        new OutboxId(rs.getObject("sample_id", UUID.class)),
                        rs.getString("sample_error")));
        boolean more = read.size() > limit;
        return new Groups(more ? List.copyOf(read.subList(0, limit)) : read,
                more && offset + limit <= MAX_GROUP_OFFSET ? offset + limit : null);
    }

    /**
     * Discards up to {@code limit} dead letters that match, oldest first, in one statement; dead letters another
     * admin is replaying or discarding right now are skipped. A waiting invoke's stored answer stays.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Replayed discardMatching(DeadLetterFilter filter, int limit) {
        Where where = filter.where();
        String sql = picked(where) + """
                DELETE FROM dead_letters d USING picked WHERE d.id = picked.id
                RETURNING d.id
                """;
        return taken(con -> Jdbc.list(con, sql, p -> p.where(where).integer(limit), rs -> rs.getObject(1, UUID.class)),
                where);
    }

    /** Runs a bulk statement that answers the ids it took, and looks on its connection whether dead letters that match are left. */
    private Replayed taken(Jdbc.Work<List<UUID>> bulk, Where where) {
        return jdbc.inConnection(con -> new Replayed(bulk.run(con),
                Jdbc.first(con, "SELECT EXISTS (SELECT 1 FROM dead_letters WHERE %s)".formatted(where.sql()),
                        p -> p.where(where), rs -> rs.getBoolean(1)).orElseThrow()));
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public boolean discard(OutboxId id) {
        return jdbc.update("DELETE FROM dead_letters WHERE id = ?", p -> p.uuid(id.value())) == 1;
    }
}
