package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.platform.HousekeepingJob;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Runs every {@link HousekeepingJob} of the deployment from the dispatcher's tick, each on its own
 * cadence, measured on {@link System#nanoTime()} (a wall clock set back would otherwise stop
 * housekeeping until it caught up). A due job first does its upkeep ({@link HousekeepingJob#maintain()}),
 * then deletes. Work per tick is bounded: a job deletes a chunk per statement
 * (each its own short transaction) and goes on only while the tick's budget lasts; a job that left
 * more behind stays due, so the next tick goes on where this one stopped. A failing job is logged once
 * per outage and does not keep the others from running.
 */
@ApplicationScoped
public class Housekeeping {

    private static final Logger LOG = Logger.getLogger(Housekeeping.class.getName());

    /** Most time one tick spends on housekeeping: the same tick recovers leases and wakes the drain loop. */
    static final long BUDGET_MILLIS = 2_000;

    @Inject
    @Any
    Instance<HousekeepingJob> jobs;

    @Inject
    Jdbc jdbc;

    /** When each job is due next (nanoTime); a job not in here is due now. */
    private final Map<String, Long> dueAt = new HashMap<>();
    private final Map<String, OutageLog> outages = new HashMap<>();

    /** Runs the jobs that are due. Called by the timer, one tick at a time. */
    public synchronized void run() {
        long budgetEnds = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BUDGET_MILLIS);
        for (HousekeepingJob job : jobs) {
            HousekeepingJob.Pruning p = job.pruning();
            Long due = dueAt.get(p.table());
            if (due != null && System.nanoTime() - due < 0) {
                continue;
            }
            OutageLog outage = outages.computeIfAbsent(p.table(), n -> new OutageLog(LOG, "housekeeping of " + n));
            boolean more;
            try {
                job.maintain();
                more = deleteChunk(p);
                while (more && System.nanoTime() - budgetEnds < 0) {
                    more = deleteChunk(p);
                }
                outage.succeeded();
            } catch (SQLException | RuntimeException e) {
                outage.failed(e);
                more = false; // tried again on its cadence, not on every tick
            }
            dueAt.put(p.table(),
                    more ? System.nanoTime() : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(p.everyMillis()));
        }
    }

    /** One statement outside any transaction (the timer runs NOT_SUPPORTED): it commits by itself. Whether the chunk was full. */
    private boolean deleteChunk(HousekeepingJob.Pruning p) {
        return jdbc.update(p.deleteSql(), b -> b.bigint(p.retention()).integer(p.chunk())) == p.chunk(); // retention, chunk
    }
}
