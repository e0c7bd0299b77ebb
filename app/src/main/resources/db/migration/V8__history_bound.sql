-- delivery_history becomes partitioned by finished_at, on a live database, in four steps (V8 to V11). Each is
-- a migration of its own because each is its own transaction: a lock one step takes is held until its commit,
-- and no step may hold an exclusive lock across another step's scan of the table.
--
-- Step 1: the bound the table will have as the first partition, [MINVALUE, next-but-one UTC midnight): 24 to
-- 48 hours ahead, so the rows nodes write until the switch (V11) are inside it. NOT VALID: the exclusive lock
-- is held only for the catalogue change, existing rows are checked by V9 under a lock writers do not wait on.
DO $$
BEGIN
    EXECUTE format('ALTER TABLE delivery_history ADD CONSTRAINT delivery_history_v7_bound CHECK (finished_at < %L) NOT VALID',
                   (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '2 days') AT TIME ZONE 'UTC');
END
$$;
