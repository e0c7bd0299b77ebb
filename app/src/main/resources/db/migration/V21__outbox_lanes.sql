-- Serves the claim's lane check (V20): is there an earlier row of this row's lane? Only keyed rows are in it, so
-- rows without an ordering key cost the writers nothing more. Built beside the table without blocking writers
-- (CONCURRENTLY, so Flyway runs this migration outside a transaction); a build that gave up leaves an invalid index
-- behind, which goes first.
DROP INDEX CONCURRENTLY IF EXISTS outbox_lanes;
CREATE INDEX CONCURRENTLY outbox_lanes ON outbox ((coalesce(trigger_id, app_id)), ordering_key, lane_seq)
    WHERE ordering_key IS NOT NULL;
