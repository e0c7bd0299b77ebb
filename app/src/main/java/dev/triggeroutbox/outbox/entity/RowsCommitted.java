package dev.triggeroutbox.outbox.entity;

import java.util.Map;

/**
 * A CDI event: a transaction on this node committed rows into the outbox (fired once per transaction, after its
 * commit, never on a rollback). The dispatcher observes it to count the rows and to wake up without waiting for
 * its poll.
 *
 * @param enqueued the rows written, by source kind; empty when rows were put back rather than written (a replay,
 *                 a lane skipped), which wakes the dispatcher but counts nothing as enqueued
 */
public record RowsCommitted(Map<SourceKind, Integer> enqueued) {
}
