package dev.triggeroutbox.console.control;

import dev.triggeroutbox.dispatch.control.DispatchSettings;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The dispatcher nodes as their heartbeats left them in {@code dispatcher_nodes}, on the database
 * clock. A node counts as stalled when it has missed as many polls as liveness allows, and as stopped once it
 * has been silent longer than a lease: whatever it had claimed has come back by then (a node that stopped
 * cleanly leaves no line; one that died, or lost its database as it stopped, does until a day has passed).
 */
@ApplicationScoped
public class Nodes {

    /** Missed polls (plus one second) before a node shows as stalled; the same rule as liveness. */
    private static final int STALLED_AFTER_TICKS = 5;

    @Inject
    Jdbc jdbc;

    @Inject
    DispatchSettings settings;

    /** How a node's heartbeat stands. */
    public enum Status {
        ALIVE, STALLED, STOPPED;

        /** As the admin API writes it. */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /**
         * A node silent for {@code ageMillis}, which polls every {@code pollMillis}, judged by a node whose lease is
         * {@code leaseMillis}.
         */
        static Status of(double ageMillis, long pollMillis, long leaseMillis) {
            long stalledAfter = STALLED_AFTER_TICKS * pollMillis + 1_000;
            if (ageMillis > Math.max(leaseMillis, stalledAfter)) {
                return STOPPED;
            }
            return ageMillis > stalledAfter ? STALLED : ALIVE;
        }
    }

    /** A node's last heartbeat; {@code lastTickAgeSeconds} on the database clock. */
    public record Node(String name, OffsetDateTime startedAt, OffsetDateTime lastTickAt, double lastTickAgeSeconds,
            int inFlight, boolean paused, long pollIntervalMillis, Status status) {
    }

    public List<Node> list() {
        return jdbc.list("""
                SELECT node, started_at, last_tick_at, in_flight, paused, poll_ms,
                       extract(epoch FROM now() - last_tick_at) AS age
                FROM dispatcher_nodes
                ORDER BY node
                """, Jdbc.Binder.NONE, rs -> {
            double age = rs.getDouble("age");
            long poll = rs.getLong("poll_ms");
            return new Node(rs.getString("node"), rs.getObject("started_at", OffsetDateTime.class),
                    rs.getObject("last_tick_at", OffsetDateTime.class), age, rs.getInt("in_flight"),
                    rs.getBoolean("paused"), poll, Status.of(age * 1000, poll, settings.leaseMillis()));
        });
    }
}
