-- Serves the claim behind a full window: the apps with due rows, one probe each (WHERE claim_token IS NULL AND
-- next_attempt_at <= now() AND app_id > ? ORDER BY app_id LIMIT 1), and each one's earliest due rows (WHERE
-- app_id = ? ... ORDER BY next_attempt_at), so that one app's backlog in the due index does not keep the other
-- apps' rows waiting behind it. Built beside the table without blocking writers (CONCURRENTLY, so Flyway runs
-- this migration outside a transaction); a build that gave up leaves an invalid index behind, which goes first.
DROP INDEX CONCURRENTLY IF EXISTS outbox_app_due;
CREATE INDEX CONCURRENTLY outbox_app_due ON outbox (app_id, next_attempt_at) WHERE claim_token IS NULL;
