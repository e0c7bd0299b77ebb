-- Partitioned history, step 3: the lookup by row id that the primary key served until now. A partitioned
-- table cannot have a unique key without its partition key, so V11 drops the primary key and every partition
-- gets a plain index on outbox_id instead; this one is built beside the key without blocking writers
-- (CONCURRENTLY, so Flyway runs this migration outside a transaction). It can run again from the start: a
-- build that gave up on a lock timeout leaves an invalid index behind, which goes first.
DROP INDEX CONCURRENTLY IF EXISTS delivery_history_v7_outbox;
CREATE INDEX CONCURRENTLY delivery_history_v7_outbox ON delivery_history (outbox_id);
