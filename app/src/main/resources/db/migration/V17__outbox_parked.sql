-- Serves the release of held rows (Holds): the parked ones, in due order. Empty while nothing is held, so it costs
-- the writers nothing then. Built beside the table without blocking writers (CONCURRENTLY, so Flyway runs this
-- migration outside a transaction); a build that gave up leaves an invalid index behind, which goes first.
DROP INDEX CONCURRENTLY IF EXISTS outbox_parked;
CREATE INDEX CONCURRENTLY outbox_parked ON outbox (held_due_at) WHERE held_due_at IS NOT NULL;
