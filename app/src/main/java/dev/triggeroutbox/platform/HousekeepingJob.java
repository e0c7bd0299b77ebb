package dev.triggeroutbox.platform;

import java.sql.SQLException;

/**
 * A background duty of a table's owner: forgetting what its table keeps past its retention. Each
 * owner declares its job (the delete written out in full, its retention setting and cadence, and for a
 * partitioned table the partitions' upkeep), and the dispatcher's timer runs them all through
 * {@code dispatch/control/Housekeeping}, which knows none of them by name. It sits here, below every
 * feature package, so that the owners need not import the dispatcher.
 */
public interface HousekeepingJob {

    /**
     * One job: {@code deleteSql} deletes at most a chunk of what is older than the retention, with two
     * parameters, 1 the retention (in the unit the statement multiplies it by) and 2 the chunk size.
     *
     * @param table       what the logs call it
     * @param setting     the configuration key the retention comes from (named when it is wrong)
     * @param everyMillis how long after a pass that left nothing behind the next one starts
     */
    record Pruning(String table, String setting, long retention, long everyMillis, String deleteSql, int chunk) {
        public Pruning {
            if (retention < 1) {
                throw new IllegalStateException(setting + " must be at least 1");
            }
        }
    }

    Pruning pruning();

    /**
     * Runs on the job's cadence before its deletes, in transactions of its own: a partitioned table makes
     * its partitions ahead and drops those past retention here. Nothing by default.
     */
    default void maintain() throws SQLException {
    }
}
