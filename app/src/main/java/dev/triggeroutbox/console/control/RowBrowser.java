package dev.triggeroutbox.console.control;

import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Where;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Every row for the console, by status: those in the outbox (pending, scheduled, in flight, held) newest written first,
 * dead letters newest dead first, delivered and cancelled rows from the history newest finished first, each list
 * filtered by app, trigger, source kind, ordering key and a time range on the time it is ordered by, in cursor pages.
 */
@ApplicationScoped
public class RowBrowser {

    /** The statuses of rows in the outbox; null lists all of them. */
    public static final Set<String> LIVE = Set.of("pending", "scheduled", "in_flight", "held");
    /** Statuses of finished rows, which the history keeps without their ordering key. */
    public static final Set<String> FINISHED = Set.of("delivered", "cancelled");

    /** What to list; every field but {@code status} may be null (no filter); {@code status} null: every row in the outbox. */
    public record Filter(String status, UUID app, UUID trigger, String kind, String orderingKey, OffsetDateTime from,
            OffsetDateTime to) {
    }

    /** One row as listed; {@code at} is the time the list is ordered by. */
    public record Listed(UUID id, UUID appId, UUID triggerId, String sourceKind, String status, int attempts,
            String lastError,
            String orderingKey, OffsetDateTime createdAt, OffsetDateTime at) {
    }

    /** A page, and where the next starts (null: none). */
    public record Page(List<Listed> items, PageCursor next) {
    }

    @Inject
    Jdbc jdbc;

    /** The filter's condition on a place with {@code app_id, trigger_id, source_kind}, ordered by the time {@code at} and {@code id}. */
    private static Where where(Filter f, String at, String id, PageCursor after) {
        return new Where()
                .uuid("app_id = ?", f.app())
                .uuid("trigger_id = ?", f.trigger())
                .text("source_kind = ?", f.kind())
                .timestamp(at + " >= ?", f.from())
                .timestamp(at + " < ?", f.to())
                .and(after != null, "(%s, %s) < (?, ?)".formatted(at, id),
                        p -> p.timestamp(after.at()).uuid(after.id()));
    }

    public Page page(Filter f, int limit, PageCursor after) {
        String sql;
        Where where;
        Where outer = new Where(); // on the listed rows, after the filter
        if (f.status() == null || LIVE.contains(f.status())) {
            where = where(f, "o.created_at", "o.id", after).text("o.ordering_key = ?", f.orderingKey());
            outer.text("status = ?", f.status());
            sql = """
                    SELECT * FROM (
                        SELECT o.id, o.app_id, o.trigger_id, o.source_kind, %s AS status, o.attempt_count, o.last_error,
                               o.ordering_key, o.created_at, o.created_at AS at
                        FROM outbox o
                        WHERE %s
                    ) r
                    WHERE %s
                    ORDER BY at DESC, id DESC
                    LIMIT ?
                    """.formatted(RowStatus.LIVE_STATUS, where.sql(), outer.sql());
        } else if (f.status().equals("dead")) {
            where = where(f, "dead_at", "id", after).text("ordering_key = ?", f.orderingKey());
            sql = """
                    SELECT id, app_id, trigger_id, source_kind, 'dead' AS status, attempt_count, last_error, ordering_key,
                           created_at, dead_at AS at
                    FROM dead_letters
                    WHERE %s
                    ORDER BY dead_at DESC, id DESC
                    LIMIT ?
                    """.formatted(where.sql());
        } else if (FINISHED.contains(f.status()) && f.orderingKey() == null) {
            where = where(f, "finished_at", "outbox_id", after).text("outcome = ?", f.status());
            sql = """
                    SELECT outbox_id AS id, app_id, trigger_id, source_kind, outcome AS status, attempt_count, last_error,
                           NULL::text AS ordering_key, created_at, finished_at AS at
                    FROM delivery_history
                    WHERE %s
                    ORDER BY finished_at DESC, outbox_id DESC
                    LIMIT ?
                    """.formatted(where.sql());
        } else {
            throw new IllegalArgumentException(
                    "no such list: " + f.status() + (f.orderingKey() != null ? " with an ordering key" : ""));
        }
        // one more than a page: whether there is a next
        List<Listed> items = jdbc.list(sql, p -> p.where(where).where(outer).integer(limit + 1),
                rs -> new Listed(rs.getObject("id", UUID.class), rs.getObject("app_id", UUID.class),
                        rs.getObject("trigger_id", UUID.class), rs.getString("source_kind"), rs.getString("status"),
                        rs.getInt("attempt_count"), rs.getString("last_error"), rs.getString("ordering_key"),
                        rs.getObject("created_at", OffsetDateTime.class), rs.getObject("at", OffsetDateTime.class)));
        if (items.size() <= limit) {
            return new Page(items, null);
        }
        Listed last = items.get(limit - 1);
        return new Page(List.copyOf(items.subList(0, limit)), new PageCursor(last.at(), last.id()));
    }
}
