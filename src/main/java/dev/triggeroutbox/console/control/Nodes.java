package dev.triggeroutbox.console.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
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

    /** A node's last heartbeat; {@code lastTickAgeSeconds} on the database clock. */
    public record Node(String name, OffsetDateTime startedAt, OffsetDateTime lastTickAt, double lastTickAgeSeconds,
            int inFlight, boolean paused, long pollIntervalMillis, boolean stalled) {
    }

    public List<Node> list() throws SQLException {
        String sql = """
                SELECT node, started_at, last_tick_at, in_flight, paused, poll_ms,
                       extract(epoch FROM now() - last_tick_at) AS age
                FROM dispatcher_nodes
                ORDER BY node
                """;
        List<Node> nodes = new ArrayList<>();
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                double age = rs.getDouble("age");
                long poll = rs.getLong("poll_ms");
                nodes.add(new Node(rs.getString("node"), rs.getObject("started_at", OffsetDateTime.class),
                        rs.getObject("last_tick_at", OffsetDateTime.class), age, rs.getInt("in_flight"),
                        rs.getBoolean("paused"), poll, age * 1000 > STALLED_AFTER_TICKS * poll + 1_000));
            }
        }
        return nodes;
    }
}
