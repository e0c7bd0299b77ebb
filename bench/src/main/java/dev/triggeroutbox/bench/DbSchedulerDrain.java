package dev.triggeroutbox.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drain (b): db-scheduler, the best-known Java peer, used as a library in this JVM against the same
 * database. One-time tasks with a no-op handler, lock-and-fetch polling (its PostgreSQL
 * {@code SELECT … FOR UPDATE SKIP LOCKED} strategy, with the library's own default limits 0.5/1.0 of
 * the threads), as many worker threads as our dispatcher has delivery permits, a connection pool as
 * large as the server's (40), the same poll interval.
 */
final class DbSchedulerDrain implements AutoCloseable {

    static final String TASK = "bench-noop";

    private final Database db;
    private final int threads;
    private final int pollMillis;
    private final HikariDataSource pool;

    DbSchedulerDrain(Database db, int threads, int pollMillis) {
        this.db = db;
        this.threads = threads;
        this.pollMillis = pollMillis;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url);
        config.setUsername(db.user);
        config.setPassword(db.password);
        config.setMaximumPoolSize(40);
        config.setPoolName("db-scheduler");
        pool = new HikariDataSource(config);
    }

    /**
     * db-scheduler's table for PostgreSQL, as its documentation describes it (columns, key and the
     * indexes on due time, heartbeat and priority), written out here.
     */
    void createTable() throws SQLException {
        try (Connection con = db.connect()) {
            Jdbc.execute(con, """
                    CREATE TABLE IF NOT EXISTS scheduled_tasks (
                        task_name            text        NOT NULL,
                        task_instance        text        NOT NULL,
                        task_data            bytea,
                        execution_time       timestamptz NOT NULL,
                        picked               boolean     NOT NULL,
                        picked_by            text,
                        last_success         timestamptz,
                        last_failure         timestamptz,
                        consecutive_failures integer,
                        last_heartbeat       timestamptz,
                        version              bigint      NOT NULL,
                        priority             smallint,
                        PRIMARY KEY (task_name, task_instance)
                    )""");
            Jdbc.execute(con, "CREATE INDEX IF NOT EXISTS scheduled_tasks_due ON scheduled_tasks (execution_time)");
            Jdbc.execute(con,
                    "CREATE INDEX IF NOT EXISTS scheduled_tasks_heartbeat ON scheduled_tasks (last_heartbeat)");
            Jdbc.execute(con,
                    "CREATE INDEX IF NOT EXISTS scheduled_tasks_priority_due ON scheduled_tasks (priority DESC, execution_time ASC)");
        }
    }

    /** {@code count} one-time executions of the no-op task, all due already, in one statement. */
    void insertDue(int count) throws SQLException {
        try (Connection con = db.connect()) {
            Jdbc.update(con, """
                    INSERT INTO scheduled_tasks (task_name, task_instance, execution_time, picked, version)
                    SELECT ?, 'row-' || g, now() - g * interval '1 millisecond', false, 1   -- 1: task name
                    FROM generate_series(1, ?) g                                           -- 2: how many
                    """, TASK, count);
        }
    }

    /** Starts a scheduler, waits until it has completed {@code count} executions, stops it. */
    Results.Throughput run(long count) throws Exception {
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong lastCompletion = new AtomicLong();
        OneTimeTask<Void> task = Tasks.oneTime(TASK).execute((instance, context) -> {
            // no-op, like the outbox's bench handler
        });
        Scheduler scheduler = Scheduler.create(pool, task)
                .threads(threads)
                .pollUsingLockAndFetch(0.5, 1.0)
                .pollingInterval(Duration.ofMillis(pollMillis))
                .schedulerName(new SchedulerName.Fixed("bench"))
                .addSchedulerListener(new AbstractSchedulerListener() {
                    @Override
                    public void onExecutionComplete(ExecutionComplete complete) {
                        // called after the completion (the row's delete) is done
                        if (complete.getResult() == ExecutionComplete.Result.OK) {
                            ok.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                        }
                        lastCompletion.set(System.nanoTime());
                    }
                })
                .build();
        long start = System.nanoTime();
        scheduler.start();
        try {
            Bench.await("db-scheduler", count, () -> ok.get() + failed.get(), 30);
        } finally {
            scheduler.stop();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException("db-scheduler: " + failed.get() + " executions failed");
        }
        return new Results.Throughput("db-scheduler", ok.get(), (lastCompletion.get() - start) / 1e9);
    }

    @Override
    public void close() {
        pool.close();
    }
}
