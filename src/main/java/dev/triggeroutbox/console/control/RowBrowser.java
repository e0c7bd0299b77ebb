package dev.triggeroutbox.console.control;

import dev.triggeroutbox.outbox.control.RowStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

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
    public record Listed(UUID id, UUID appId, UUID triggerId, String sourceKind, String status, int attempts, String lastError,
            String orderingKey, OffsetDateTime createdAt, OffsetDateTime at) {
    }

    /** A page, and where the next starts (null: none). */
    public record Page(List<Listed> items, PageCursor next) {
    }

    @Inject
    DataSource dataSource;

    /** The filter's WHERE on a place with {@code app_id, trigger_id, source_kind}, ordered by the time {@code %1$s} and id {@code %2$s}; 12 parameters. */
    private static final String WHERE = """
            (?::uuid IS NULL OR app_id = ?::uuid)                                   -- 1, 2
            AND (?::uuid IS NULL OR trigger_id = ?::uuid)                           -- 3, 4
            AND (?::text IS NULL OR source_kind = ?::text)                          -- 5, 6
            AND (?::timestamptz IS NULL OR %1$s >= ?::timestamptz)                  -- 7, 8: from
            AND (?::timestamptz IS NULL OR %1$s < ?::timestamptz)                   -- 9, 10: to
            AND (%1$s, %2$s) < (?::timestamptz, ?::uuid)                            -- 11, 12: after the cursor""";

    public Page page(Filter f, int limit, PageCursor after) throws SQLException {
        String sql;
        List<String> tail = new ArrayList<>(); // text parameters after the filter's, in order
        if (f.status() == null || LIVE.contains(f.status())) {
            sql = """
                    SELECT * FROM (
                        SELECT o.id, o.app_id, o.trigger_id, o.source_kind, %s AS status, o.attempt_count, o.last_error,
                               o.ordering_key, o.created_at, o.created_at AS at
                        FROM outbox o
                        WHERE %s
                          AND (?::text IS NULL OR o.ordering_key = ?::text)             -- 13, 14: ordering key
                    ) r
                    WHERE ?::text IS NULL OR status = ?::text                           -- 15, 16: status
                    ORDER BY at DESC, id DESC
                    LIMIT ?
                    """.formatted(RowStatus.LIVE_STATUS, WHERE.formatted("o.created_at", "o.id"));
            tail.addAll(java.util.Arrays.asList(f.orderingKey(), f.orderingKey(), f.status(), f.status()));
        } else if (f.status().equals("dead")) {
            sql = """
                    SELECT id, app_id, trigger_id, source_kind, 'dead' AS status, attempt_count, last_error, ordering_key,
                           created_at, dead_at AS at
                    FROM dead_letters
                    WHERE %s
                      AND (?::text IS NULL OR ordering_key = ?::text)                   -- 13, 14: ordering key
                    ORDER BY dead_at DESC, id DESC
                    LIMIT ?
                    """.formatted(WHERE.formatted("dead_at", "id"));
            tail.addAll(java.util.Arrays.asList(f.orderingKey(), f.orderingKey()));
        } else if (FINISHED.contains(f.status()) && f.orderingKey() == null) {
            sql = """
                    SELECT outbox_id AS id, app_id, trigger_id, source_kind, outcome AS status, attempt_count, last_error,
                           NULL::text AS ordering_key, created_at, finished_at AS at
                    FROM delivery_history
                    WHERE %s
                      AND outcome = ?                                                   -- 13: status
                    ORDER BY finished_at DESC, outbox_id DESC
                    LIMIT ?
                    """.formatted(WHERE.formatted("finished_at", "outbox_id"));
            tail.add(f.status());
        } else {
            throw new IllegalArgumentException("no such list: " + f.status() + (f.orderingKey() != null ? " with an ordering key" : ""));
        }
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            int i = 1;
            for (Object v : new Object[] {f.app(), f.app(), f.trigger(), f.trigger()}) {
                ps.setObject(i++, v, Types.OTHER);
            }
            ps.setString(i++, f.kind());
            ps.setString(i++, f.kind());
            for (OffsetDateTime t : new OffsetDateTime[] {f.from(), f.from(), f.to(), f.to()}) {
                ps.setObject(i++, t, Types.TIMESTAMP_WITH_TIMEZONE);
            }
            // the first page starts after the newest possible row
            ps.setObject(i++, after == null ? OffsetDateTime.parse("9999-12-31T00:00:00Z") : after.at(), Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(i++, after == null ? new UUID(-1L, -1L) : after.id(), Types.OTHER);
            for (String text : tail) {
                ps.setString(i++, text);
            }
            ps.setInt(i, limit + 1); // one more: whether there is a next page
            List<Listed> items = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    items.add(new Listed(rs.getObject("id", UUID.class), rs.getObject("app_id", UUID.class),
                            rs.getObject("trigger_id", UUID.class), rs.getString("source_kind"), rs.getString("status"),
                            rs.getInt("attempt_count"), rs.getString("last_error"), rs.getString("ordering_key"),
                            rs.getObject("created_at", OffsetDateTime.class), rs.getObject("at", OffsetDateTime.class)));
                }
            }
            if (items.size() <= limit) {
                return new Page(items, null);
            }
            Listed last = items.get(limit - 1);
            return new Page(List.copyOf(items.subList(0, limit)), new PageCursor(last.at(), last.id()));
        }
    }
}
