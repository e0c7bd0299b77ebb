-- The delivery log (GET /outbox/{id}/attempts). An attempt that delivered is the row's last: its delivery_history
-- row says so, and now also when it was claimed and what a webhook answered (two nullable columns: a catalogue
-- change on the partitioned table and its partitions, nothing rewritten), so the drain writes nothing more per
-- delivered row than before. Every other attempt that came to an end (failed, dead, cancelled in flight, its lease
-- run out) gets a row in delivery_attempts, written by the statement that finished it (Claims) in its transaction,
-- so an attempt whose result was fenced off leaves no entry. Both are kept as long as the history
-- (outbox.history.retention-hours); delivery_attempts is pruned a chunk at a time (DeliveryAttempts).
ALTER TABLE delivery_history ADD COLUMN claimed_at timestamptz, ADD COLUMN http_status integer;
CREATE TABLE delivery_attempts (
    outbox_id   uuid        NOT NULL,
    attempt     integer     NOT NULL,
    app_id      uuid        NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT now(),
    -- from the claim (finished_at - duration_ms, database clock) to the result
    duration_ms integer     NOT NULL,
    -- the node that claimed it
    node        text,
    outcome     text        NOT NULL CHECK (outcome IN ('failed', 'dead', 'cancelled')),
    http_status integer,
    error       text,
    -- the first 1 KiB of a webhook's answer to a refusal
    answer      text
);
-- GET /outbox/{id}/attempts
CREATE INDEX delivery_attempts_row ON delivery_attempts (outbox_id);
-- the prune by age; append-only in time order: BRIN
CREATE INDEX delivery_attempts_finished ON delivery_attempts USING brin (finished_at);
