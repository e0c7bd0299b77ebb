-- The W3C trace context a row was written with (the producer's traceparent, normalised to version 00, and its
-- tracestate), sent on every delivery so that the receiver's trace joins the producer's. Kept with a dead
-- letter, so that a replay carries it again. Nullable columns without a default: PostgreSQL adds them without
-- rewriting the tables (the exclusive lock is held for the catalogue change only).
ALTER TABLE outbox ADD COLUMN traceparent text, ADD COLUMN tracestate text;
ALTER TABLE dead_letters ADD COLUMN traceparent text, ADD COLUMN tracestate text;
