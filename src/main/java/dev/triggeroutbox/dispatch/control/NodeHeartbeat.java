package dev.triggeroutbox.dispatch.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import javax.sql.DataSource;

/**
 * This node's line in {@code dispatcher_nodes}, written by the poll timer at most about once a
 * second (one small upsert outside the claim → deliver → finish path), so the console can show
 * every node's last tick and rows in flight. Each beat also reads the database's clock for
 * {@link DatabaseClock}. Nodes gone for a day are removed by whichever node beats.
 */
@ApplicationScoped
public class NodeHeartbeat {

    /** A little under a second, so a timer that fires a few milliseconds early still beats every tick. */
    private static final long EVERY_MILLIS = 900;
    private static final long FORGET_EVERY_MILLIS = 3_600_000;

    @Inject
    DataSource dataSource;

    @Inject
    DispatchSettings settings;

    @Inject
    DispatchCycle cycle;

    @Inject
    DatabaseClock databaseClock;

    /** When this node started, on the database's clock (its first beat). */
    private OffsetDateTime startedAt;
    private long lastBeat;
    private long lastForget;

    /** Called from the poll timer only (one thread at a time). */
    public void beat(boolean paused) throws SQLException {
        long now = System.currentTimeMillis();
        if (now - lastBeat < EVERY_MILLIS) {
            return;
        }
        lastBeat = now;
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement("""
                INSERT INTO dispatcher_nodes (node, started_at, last_tick_at, in_flight, paused, poll_ms)
                VALUES (?, COALESCE(?, now()), now(), ?, ?, ?)   -- 1 node, 2 started (first beat: now), 3 in flight, 4 paused, 5 poll
                ON CONFLICT (node) DO UPDATE SET started_at = excluded.started_at, last_tick_at = now(),
                    in_flight = excluded.in_flight, paused = excluded.paused, poll_ms = excluded.poll_ms
                RETURNING started_at, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                """)) {
            ps.setString(1, settings.nodeName());
            ps.setObject(2, startedAt);
            ps.setInt(3, cycle.inFlight());
            ps.setBoolean(4, paused);
            ps.setLong(5, settings.pollIntervalMillis());
            long before = System.currentTimeMillis();
            try (ResultSet rs = ps.executeQuery()) {
                long after = System.currentTimeMillis();
                rs.next();
                startedAt = rs.getObject(1, OffsetDateTime.class);
                databaseClock.observed(rs.getLong(2), before, after);
            }
        }
        if (now - lastForget >= FORGET_EVERY_MILLIS) {
            lastForget = now;
            try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(
                    "DELETE FROM dispatcher_nodes WHERE last_tick_at < now() - interval '1 day'")) {
                ps.executeUpdate();
            }
        }
    }

    /** A node that shuts down cleanly leaves the list at once. */
    public void leave() throws SQLException {
        try (Connection con = dataSource.getConnection();
                PreparedStatement ps = con.prepareStatement("DELETE FROM dispatcher_nodes WHERE node = ?")) { // 1
            ps.setString(1, settings.nodeName());
            ps.executeUpdate();
        }
    }
}
