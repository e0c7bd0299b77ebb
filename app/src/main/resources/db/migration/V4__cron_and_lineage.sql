-- Trigger Outbox schema, version 4: cron schedules on triggers, and the parent of each row so a
-- cascade can be shown as a tree (lineage).

-- A cron trigger (source_kind 'cron') carries its schedule. next_fire_at is written only by the
-- firing statement (never by JPA): NULL means "not computed yet"; the next firing pass computes it
-- from the database clock without firing.
ALTER TABLE triggers
    ADD COLUMN schedule      text,
    ADD COLUMN timezone      text,
    ADD COLUMN misfire       text CHECK (misfire IN ('fire_once', 'skip')),
    ADD COLUMN next_fire_at  timestamptz,
    ADD COLUMN last_fired_at timestamptz,
    -- only cron triggers have one (cron triggers from before version 4 have none: they never fire)
    ADD CHECK (schedule IS NULL OR source_kind = 'cron');

-- Serves the firing pass: enabled cron triggers by when they are due.
CREATE INDEX triggers_cron_due ON triggers (next_fire_at NULLS FIRST) WHERE source_kind = 'cron' AND enabled;

-- The row whose delivery wrote this one (invokeAsync, a handler's publish, a dead-letter event);
-- NULL for rows from outside. Carried into history and dead letters.
ALTER TABLE outbox ADD COLUMN parent_id uuid;
ALTER TABLE dead_letters ADD COLUMN parent_id uuid;
ALTER TABLE delivery_history ADD COLUMN parent_id uuid;

-- Serve GET /admin/lineage/{rootExecutionId}. The live outbox has no such index on purpose (it
-- would cost every enqueue); a lineage call scans the rows still pending.
CREATE INDEX delivery_history_root ON delivery_history (root_execution_id);
CREATE INDEX dead_letters_root ON dead_letters (root_execution_id);
