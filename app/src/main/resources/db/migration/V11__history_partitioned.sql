-- Partitioned history, step 4, the switch: catalogue changes only, so the exclusive lock the rename takes is
-- held for milliseconds. The old table becomes the partition [MINVALUE, its bound): its indexes match the new
-- table's and are attached, not rebuilt, and its validated bound spares ATTACH its scan. The dispatcher's
-- housekeeping adds the partitions after it (DeliveryHistory) and drops each one once it is past retention.
ALTER INDEX delivery_history_root RENAME TO delivery_history_v7_root;
ALTER INDEX delivery_history_finished RENAME TO delivery_history_v7_finished;
ALTER TABLE delivery_history RENAME TO delivery_history_v7;
-- a row replayed from the dead letters is finished again under its own id: history keeps both outcomes now
ALTER TABLE delivery_history_v7 DROP CONSTRAINT delivery_history_pkey;

-- Where each finished row ended, so "was my event delivered?" has an answer after the row is gone (the
-- newest outcome of an id is its answer). One partition per day or hour of finished_at.
CREATE TABLE delivery_history (
    outbox_id         uuid        NOT NULL,
    app_id            uuid        NOT NULL,
    source_kind       text        NOT NULL,
    trigger_id        uuid,
    root_execution_id uuid,
    trigger_depth     integer     NOT NULL,
    -- named as the V1 table's, so that table attaches (a partition must have its parent's checks, by name)
    outcome           text        NOT NULL CONSTRAINT delivery_history_outcome_check CHECK (outcome IN ('delivered', 'dead')),
    attempt_count     integer     NOT NULL,
    last_error        text,
    created_at        timestamptz NOT NULL,
    finished_at       timestamptz NOT NULL DEFAULT now(),
    finished_by       text,
    parent_id         uuid
) PARTITION BY RANGE (finished_at);

-- GET /outbox/{id}; GET /admin/lineage/{rootExecutionId}; the console's time windows (append-only: BRIN)
CREATE INDEX delivery_history_outbox ON delivery_history (outbox_id);
CREATE INDEX delivery_history_root ON delivery_history (root_execution_id);
CREATE INDEX delivery_history_finished ON delivery_history USING brin (finished_at);

DO $$
DECLARE
    bound timestamptz;
BEGIN
    SELECT substring(pg_get_constraintdef(oid) FROM '''([^'']+)''')::timestamptz INTO STRICT bound
    FROM pg_constraint WHERE conrelid = 'delivery_history_v7'::regclass AND conname = 'delivery_history_v7_bound';
    EXECUTE format('ALTER TABLE delivery_history ATTACH PARTITION delivery_history_v7 FOR VALUES FROM (MINVALUE) TO (%L)', bound);
END
$$;
ALTER TABLE delivery_history_v7 DROP CONSTRAINT delivery_history_v7_bound;

-- Whatever no partition takes (housekeeping stopped for days, a clock stepped far): an insert never fails for
-- want of a partition. Normally empty; what lands here is pruned by age, row by row.
CREATE TABLE delivery_history_default PARTITION OF delivery_history DEFAULT;
