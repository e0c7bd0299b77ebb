-- Cancel (POST /outbox/{id}/cancel, POST /admin/outbox/cancel). A row that is pending or scheduled leaves the
-- outbox at once for delivery_history with the outcome 'cancelled'; a row in flight is only marked, and the
-- finish of its attempt (fenced by its claim token, as ever) moves it there instead of rescheduling or
-- dead-lettering it, unless the attempt delivered. A constant default: PostgreSQL adds the column without
-- rewriting the table (the exclusive lock is held for the catalogue change only).
ALTER TABLE outbox ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;

-- The new outcome, in history and in the replies an invoke waits for. Dropping a CHECK and adding one NOT VALID
-- is a catalogue change on the partitioned table and each of its partitions; no row is read. The rows already
-- there passed the narrower check, so validating them would prove nothing and would scan the whole history
-- under a lock that the housekeeping's partition DDL (and every writer queued behind it) would wait on. Rows
-- written from now on are checked; partitions made from now on carry the check validated (an empty table), and
-- the unvalidated ones leave with retention.
ALTER TABLE delivery_history DROP CONSTRAINT delivery_history_outcome_check;
ALTER TABLE delivery_history ADD CONSTRAINT delivery_history_outcome_check
    CHECK (outcome IN ('delivered', 'dead', 'cancelled')) NOT VALID;

ALTER TABLE replies DROP CONSTRAINT replies_outcome_check;
ALTER TABLE replies ADD CONSTRAINT replies_outcome_check
    CHECK (outcome IN ('delivered', 'dead', 'cancelled')) NOT VALID;
