package dev.triggeroutbox.console.control;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/** Totals for {@code GET /admin/stats}, all read in one statement on the database clock. */
@ApplicationScoped
public class Stats {

    @Inject
    DataSource dataSource;

    public JsonObject totals() throws SQLException {
        String sql = """
                WITH live AS (
                    SELECT source_kind,
                           count(*) FILTER (WHERE NOT in_flight AND next_attempt_at <= now()) AS pending,
                           count(*) FILTER (WHERE NOT in_flight AND next_attempt_at > now())  AS scheduled,
                           count(*) FILTER (WHERE in_flight)                                 AS in_flight,
                           min(next_attempt_at) FILTER (WHERE NOT in_flight AND next_attempt_at <= now()) AS oldest_due
                    FROM (SELECT source_kind, next_attempt_at,
                                 claim_token IS NOT NULL AND lease_expires_at > now() AS in_flight
                          FROM outbox) o
                    GROUP BY source_kind
                ), dead AS (
                    SELECT source_kind, count(*) AS dead FROM dead_letters GROUP BY source_kind
                )
                SELECT coalesce(l.source_kind, d.source_kind) AS source_kind,
                       coalesce(l.pending, 0), coalesce(l.scheduled, 0), coalesce(l.in_flight, 0),
                       coalesce(d.dead, 0), extract(epoch FROM now() - l.oldest_due),
                       (SELECT count(*) FROM delivery_history
                        WHERE outcome = 'delivered' AND finished_at > now() - interval '1 minute')
                FROM live l FULL JOIN dead d ON d.source_kind = l.source_kind
                """;
        long pending = 0;
        long scheduled = 0;
        long inFlight = 0;
        long dead = 0;
        double oldest = 0;
        long deliveredLastMinute = 0;
        Map<String, JsonObject> byKind = new TreeMap<>();
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long p = rs.getLong(2);
                long s = rs.getLong(3);
                long f = rs.getLong(4);
                long d = rs.getLong(5);
                pending += p;
                scheduled += s;
                inFlight += f;
                dead += d;
                oldest = Math.max(oldest, rs.getDouble(6));
                deliveredLastMinute = rs.getLong(7);
                byKind.put(rs.getString(1), Jsons.object().add("pending", p).add("scheduled", s)
                        .add("inFlight", f).add("dead", d).build());
            }
        }
        if (byKind.isEmpty()) {
            deliveredLastMinute = deliveredLastMinute();
        }
        JsonObjectBuilder kinds = Jsons.object();
        byKind.forEach(kinds::add);
        return Jsons.object()
                .add("pending", pending)
                .add("scheduled", scheduled)
                .add("inFlight", inFlight)
                .add("dead", dead)
                .add("deliveredLastMinute", deliveredLastMinute)
                .add("oldestDueAgeSeconds", Math.round(oldest * 1000) / 1000.0)
                .add("byKind", kinds)
                .build();
    }

    private long deliveredLastMinute() throws SQLException {
        try (Connection con = dataSource.getConnection();
                PreparedStatement ps = con.prepareStatement("""
                        SELECT count(*) FROM delivery_history
                        WHERE outcome = 'delivered' AND finished_at > now() - interval '1 minute'""");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
