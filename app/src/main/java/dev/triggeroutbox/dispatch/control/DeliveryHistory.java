package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.platform.HousekeepingJob;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The retention of {@code delivery_history}: the outcome of every finished row stays answerable by
 * {@code GET /outbox/{id}} for {@code outbox.history.retention-hours}, then goes. (The rows are written by
 * the finishing statements of {@link Claims}, in the transaction that finishes the row.) The table is
 * partitioned by {@code finished_at} (V11): a partition past retention is dropped whole, which leaves no
 * dead rows behind, and the partitions ahead are made here before they are needed
 * ({@link HistoryPartitions} decides which). Only what landed in the default partition is deleted row by row.
 */
@ApplicationScoped
public class DeliveryHistory implements HousekeepingJob {

    /** Once a minute: history is kept for hours, a minute more is nothing, and each pass reads the catalogue. */
    static final long PRUNE_EVERY_MILLIS = 60_000;
    /** Rows per delete from the default partition: one short transaction, whatever landed there. */
    static final int PRUNE_CHUNK = 10_000;
    /**
     * Longest wait of a partition's DDL for its lock. Dropping a partition takes an exclusive lock on the
     * whole table for a catalogue change, and the finishing statements queue behind it while it waits: one
     * second is as long as they should stall; a drop that waited in vain is tried again a minute later.
     */
    static final Duration DDL_LOCK_TIMEOUT = Duration.ofSeconds(1);
    /** Steps per pass: enough to catch up after a long stop (a week of days), bounded all the same. */
    static final int MOST_STEPS = 64;

    /**
     * Hours a delivered or dead outcome (and a row's delivery log, outbox/control/DeliveryAttempts) stays
     * answerable. Longer: "was my event delivered?" has an answer for longer, and the table grows with the delivery rate times this; at least 1. From 48 the
     * partitions span a day, below it an hour; an outcome stays up to one span past this.
     */
    @Inject
    @ConfigProperty(name = "outbox.history.retention-hours", defaultValue = "168")
    int retentionHours;

    @Inject
    Jdbc jdbc;

    /** What lands in the default partition is older than the retention soon enough too, and goes a chunk at a time. */
    @Override
    public Pruning pruning() {
        return new Pruning("delivery history", "outbox.history.retention-hours", retentionHours, PRUNE_EVERY_MILLIS, """
                DELETE FROM delivery_history_default
                WHERE ctid = ANY (ARRAY(
                    SELECT ctid FROM delivery_history_default
                    WHERE finished_at < now() - ? * interval '1 hour'    -- retention
                    LIMIT ?))                                            -- chunk
                """, PRUNE_CHUNK);
    }

    /**
     * Drops the partitions past retention and adds those ahead, one step per transaction, each step
     * decided from the catalogue as it is then. Nodes take turns: a node that finds another at it leaves
     * the work to that one.
     */
    @Override
    public void maintain() {
        Duration retention = Duration.ofHours(retentionHours);
        jdbc.inConnection(con -> {
            con.setAutoCommit(false);
            try {
                for (int i = 0; i < MOST_STEPS && step(con, retention); i++) {
                    con.commit();
                }
            } finally {
                con.rollback(); // the step that found nothing to do, or the one that failed
                con.setAutoCommit(true);
            }
            return null;
        });
    }

    /** One step in the open transaction; false when there is nothing to do or another node is at it. */
    private static boolean step(Connection con, Duration retention) throws SQLException {
        try (Statement st = con.createStatement()) {
            st.execute("SET LOCAL lock_timeout = " + DDL_LOCK_TIMEOUT.toMillis()); // milliseconds, a number we made
            try (ResultSet rs = st
                    .executeQuery("SELECT pg_try_advisory_xact_lock(hashtext('delivery_history partitions'))")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return false;
                }
            }
            Optional<HistoryPartitions.Step> next = HistoryPartitions.next(layout(con), retention);
            if (next.isEmpty()) {
                return false;
            }
            if (next.get() instanceof HistoryPartitions.Drop d) {
                st.execute("DROP TABLE " + quoted(d.name())); // a name from the catalogue: whoever attached it chose it
            } else if (next.get() instanceof HistoryPartitions.Create c) {
                // names and bounds made by HistoryPartitions from instants: digits only;
                // made apart, then attached: ATTACH locks the table only against other DDL, where
                // CREATE … PARTITION OF would lock out every writer
                st.execute("CREATE TABLE " + c.name()
                        + " (LIKE delivery_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
                st.execute("ALTER TABLE delivery_history ATTACH PARTITION " + c.name()
                        + " FOR VALUES FROM ('" + c.from() + "') TO ('" + c.to() + "')");
            }
            return true;
        }
    }

    /** The range partitions and their bounds, read from the catalogue, and the database clock. */
    private static HistoryPartitions.Layout layout(Connection con) {
        record Clock(Instant now, Instant newestInDefault) {
        }
        Clock clock = Jdbc.first(con, "SELECT now(), (SELECT max(finished_at) FROM delivery_history_default)",
                Jdbc.Binder.NONE, rs -> new Clock(rs.getObject(1, OffsetDateTime.class).toInstant(),
                        instant(rs.getObject(2, OffsetDateTime.class))))
                .orElseThrow();
        String sql = """
                SELECT c.relname,
                       substring(b.bound FROM 'FROM \\(''([^'']+)''\\)')::timestamptz,   -- NULL for MINVALUE
                       substring(b.bound FROM 'TO \\(''([^'']+)''\\)')::timestamptz
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
                WHERE i.inhparent = 'delivery_history'::regclass AND b.bound <> 'DEFAULT'
                """;
        List<HistoryPartitions.Range> ranges = Jdbc.list(con, sql, Jdbc.Binder.NONE, rs -> new HistoryPartitions.Range(
                rs.getString(1), instant(rs.getObject(2, OffsetDateTime.class)),
                instant(rs.getObject(3, OffsetDateTime.class))));
        return new HistoryPartitions.Layout(clock.now(), ranges, clock.newestInDefault());
    }

    private static String quoted(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private static Instant instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }
}
