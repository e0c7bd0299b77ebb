-- Partitioned history, step 2: check the existing rows against the bound. VALIDATE scans the table under
-- SHARE UPDATE EXCLUSIVE, which readers and writers do not wait on; afterwards ATTACH PARTITION (V11) knows
-- the rows fit and skips its own scan, which would hold an exclusive lock.
ALTER TABLE delivery_history VALIDATE CONSTRAINT delivery_history_v7_bound;
