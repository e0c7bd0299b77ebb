-- A dead letter keeps the attempt budget its row was given (an invokeAsync row's single attempt,
-- say), so a replay gives it the same budget again rather than its trigger's or the default.
ALTER TABLE dead_letters ADD COLUMN max_attempts integer CHECK (max_attempts BETWEEN 1 AND 1000);

-- The audit is pruned by age (outbox.audit.retention-days) a bounded chunk at a time.
CREATE INDEX admin_audit_at ON admin_audit (at);
