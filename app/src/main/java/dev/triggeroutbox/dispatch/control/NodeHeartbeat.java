package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.platform.DatabaseClock;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * This node's line in {@code dispatcher_nodes}, written by the poll timer at most about once a
 * second (one small upsert outside the claim → deliver → finish path), so the console can show
 * every node's last tick and rows in flight. Each beat also reads the database's clock for
 * {@link DatabaseClock}. Nodes gone for a day are removed by whichever node beats. Its cadences are
 * measured on the monotonic clock, so a wall clock set back does not stop it; when the wall clock has
 * stepped since the last reading, it beats at once to measure the database clock's offset again.
 */
@ApplicationScoped
public class NodeHeartbeat {

    /** A little under a second, so a timer that fires a few milliseconds early still beats every tick. */
    private static final long EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(900);
    private static final long FORGET_EVERY_NANOS = TimeUnit.HOURS.toNanos(1);
    /** A wall clock that moved this much more (or less) than the monotonic one was stepped. */
    static final long STEP_MILLIS = 1_000;
    private static final Logger LOG = Logger.getLogger(NodeHeartbeat.class.getName());

    @Inject
    Jdbc jdbc;

    @Inject
    DispatchSettings settings;

    @Inject
    DispatchCycle cycle;

    @Inject
    DatabaseClock databaseClock;

    /** When this node started, on the database's clock (its first beat). */
    private OffsetDateTime startedAt;
    private boolean beaten;
    private long lastBeat;
    private long lastForget;

    /** Called from the poll timer only (one thread at a time). */
    public void beat(boolean paused) {
        long now = System.nanoTime();
        long step = databaseClock.wallStepMillis();
        boolean stepped = Math.abs(step) > STEP_MILLIS;
        if (beaten && now - lastBeat < EVERY_NANOS && !stepped) {
            return;
        }
        if (stepped) {
            LOG.warning(() -> "this node's wall clock moved " + step + " ms against its monotonic clock since the last "
                    + "heartbeat (stepped); the database clock's offset is measured again");
        }
        boolean first = !beaten;
        beaten = true;
        lastBeat = now;
        jdbc.inConnection(con -> {
            // the clock's round trip is timed from just before the statement runs to its answer
            long before = System.nanoTime();
            return Jdbc.first(con, """
                    INSERT INTO dispatcher_nodes (node, started_at, last_tick_at, in_flight, paused, poll_ms)
                    VALUES (?, COALESCE(?, now()), now(), ?, ?, ?)   -- node, started (first beat: now), in flight, paused, poll
                    ON CONFLICT (node) DO UPDATE SET started_at = excluded.started_at, last_tick_at = now(),
                        in_flight = excluded.in_flight, paused = excluded.paused, poll_ms = excluded.poll_ms
                    RETURNING started_at, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                    """, p -> p.text(settings.nodeName()).timestamp(startedAt).integer(cycle.inFlight()).bool(paused)
                    .bigint(settings.pollIntervalMillis()), rs -> {
                        long after = System.nanoTime();
                        startedAt = rs.getObject(1, OffsetDateTime.class);
                        databaseClock.observed(rs.getLong(2), before, after);
                        return startedAt;
                    });
        });
        if (first || now - lastForget >= FORGET_EVERY_NANOS) {
            lastForget = now;
            jdbc.update("DELETE FROM dispatcher_nodes WHERE last_tick_at < now() - interval '1 day'", Jdbc.Binder.NONE);
        }
    }

    /** A node that shuts down cleanly leaves the list at once. */
    public void leave() {
        jdbc.update("DELETE FROM dispatcher_nodes WHERE node = ?", p -> p.text(settings.nodeName()));
    }
}
