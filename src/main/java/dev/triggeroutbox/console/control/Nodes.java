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
 * The dispatcher nodes as their heartbeats left them in {@code dispatcher_nodes}, on the database
 * clock. A node counts as stalled when it has missed as many polls as liveness allows.
 */
@ApplicationScoped
public class Nodes {

    /** Missed polls (plus one second) before a node shows as stalled; the same rule as liveness. */
    private static final int STALLED_AFTER_TICKS = 5;

    @Inject
    DataSource dataSource;

    public JsonObject list() throws SQLException {
        String sql = """
                SELECT node, started_at, last_tick_at, in_flight, paused, poll_ms,
                       extract(epoch FROM now() - last_tick_at) AS age
                FROM dispatcher_nodes
                ORDER BY node
                """;
        JsonArrayBuilder items = Jsons.array();
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                double age = rs.getDouble("age");
                long poll = rs.getLong("poll_ms");
                boolean stalled = age * 1000 > STALLED_AFTER_TICKS * poll + 1_000;
                items.add(Jsons.object()
                        .add("node", rs.getString("node"))
                        .add("startedAt", ConsoleJson.utc(rs.getObject("started_at", OffsetDateTime.class)))
                        .add("lastTickAt", ConsoleJson.utc(rs.getObject("last_tick_at", OffsetDateTime.class)))
                        .add("lastTickAgeSeconds", Math.round(age * 1000) / 1000.0)
                        .add("inFlight", rs.getInt("in_flight"))
                        .add("paused", rs.getBoolean("paused"))
                        .add("pollIntervalMillis", poll)
                        .add("status", stalled ? "stalled" : "alive"));
            }
        }
        return Jsons.object().add("items", items).build();
    }
}
