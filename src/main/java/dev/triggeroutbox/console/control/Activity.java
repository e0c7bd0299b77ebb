package dev.triggeroutbox.console.control;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import javax.sql.DataSource;

/**
 * What the dispatchers finished, per minute, from the delivery history: rows delivered, rows
 * dead-lettered, and failed attempts (every attempt of a dead row, every attempt but the last of a
 * delivered one). Retries of rows still in the outbox show once those rows finish.
 */
@ApplicationScoped
public class Activity {

    @Inject
    DataSource dataSource;

    /** The last {@code minutes} whole minutes plus the current one, oldest first, empty minutes included. */
    public JsonObject perMinute(int minutes) throws SQLException {
        String sql = """
                WITH buckets AS (
                    SELECT generate_series(date_trunc('minute', now()) - make_interval(mins => ?),  -- 1
                                           date_trunc('minute', now()), interval '1 minute') AS minute
                ), finished AS (
                    SELECT date_trunc('minute', finished_at) AS minute,
                           count(*) FILTER (WHERE outcome = 'delivered') AS delivered,
                           count(*) FILTER (WHERE outcome = 'dead') AS dead,
                           sum(CASE WHEN outcome = 'dead' THEN attempt_count ELSE attempt_count - 1 END) AS failed
                    FROM delivery_history
                    WHERE finished_at >= date_trunc('minute', now()) - make_interval(mins => ?)      -- 2
                    GROUP BY 1
                )
                SELECT b.minute, coalesce(f.delivered, 0), coalesce(f.dead, 0), coalesce(f.failed, 0)
                FROM buckets b LEFT JOIN finished f ON f.minute = b.minute
                ORDER BY b.minute
                """;
        JsonArrayBuilder items = Jsons.array();
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setInt(1, minutes);
            ps.setInt(2, minutes);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    items.add(Jsons.object()
                            .add("minute", ConsoleJson.utc(rs.getObject(1, OffsetDateTime.class)))
                            .add("delivered", rs.getLong(2))
                            .add("dead", rs.getLong(3))
                            .add("failedAttempts", rs.getLong(4)));
                }
            }
        }
        return Jsons.object().add("items", items).build();
    }

    /** How the work splits up by one dimension; the column is chosen here, never by the caller's text. */
    public enum By {
        SOURCE_KIND("source_kind", "sourceKind"), APP("app_id", "appId");

        final String column;
        final String field;

        By(String column, String field) {
            this.column = column;
            this.field = field;
        }
    }

    /**
     * Rows waiting and dead, and rows finished in the last hour, per source kind or app: the
     * {@code limit} busiest first.
     */
    public JsonObject breakdown(By by, int limit) throws SQLException {
        String sql = """
                WITH live AS (
                    SELECT %1$s AS k, count(*) FILTER (WHERE claim_token IS NULL) AS waiting,
                           count(*) FILTER (WHERE claim_token IS NOT NULL) AS in_flight
                    FROM outbox GROUP BY 1
                ), dead AS (
                    SELECT %1$s AS k, count(*) AS dead FROM dead_letters GROUP BY 1
                ), hour AS (
                    SELECT %1$s AS k, count(*) FILTER (WHERE outcome = 'delivered') AS delivered,
                           count(*) FILTER (WHERE outcome = 'dead') AS dead_lettered
                    FROM delivery_history WHERE finished_at > now() - interval '1 hour' GROUP BY 1
                )
                SELECT coalesce(l.k, d.k, h.k)::text AS k, coalesce(l.waiting, 0) AS waiting,
                       coalesce(l.in_flight, 0) AS in_flight, coalesce(d.dead, 0) AS dead,
                       coalesce(h.delivered, 0) AS delivered, coalesce(h.dead_lettered, 0) AS dead_lettered
                FROM live l FULL JOIN dead d ON d.k = l.k FULL JOIN hour h ON h.k = coalesce(l.k, d.k)
                ORDER BY waiting + in_flight + dead + delivered DESC, 1
                LIMIT ?                                                              -- 1
                """.formatted(by.column);
        JsonArrayBuilder items = Jsons.array();
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setInt(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    items.add(Jsons.object()
                            .add(by.field, rs.getString("k"))
                            .add("waiting", rs.getLong("waiting"))
                            .add("inFlight", rs.getLong("in_flight"))
                            .add("dead", rs.getLong("dead"))
                            .add("deliveredLastHour", rs.getLong("delivered"))
                            .add("deadLetteredLastHour", rs.getLong("dead_lettered")));
                }
            }
        }
        return Jsons.object().add("items", items).build();
    }
}
