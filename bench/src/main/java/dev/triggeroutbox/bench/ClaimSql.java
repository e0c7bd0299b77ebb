package dev.triggeroutbox.bench;

/**
 * The dispatcher's claim, as the harness runs it outside the server. Copied from
 * {@code dispatch/control/Claims.java}; keep the two in step when the claim changes.
 */
final class ClaimSql {

    /** The product's claim statement, verbatim: what the backlog part times. */
    static final String PRODUCT = """
            WITH due AS (
                SELECT id FROM outbox
                WHERE claim_token IS NULL AND next_attempt_at <= now()
                ORDER BY next_attempt_at
                LIMIT ?                                              -- 1: batch size
                FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE outbox o
                SET claim_token = ?,                                 -- 2: fresh token of this claim
                    claimed_by = ?,                                  -- 3: node name
                    claimed_at = now(),
                    lease_expires_at = now() + ? * interval '1 millisecond',  -- 4: lease
                    attempt_count = o.attempt_count + 1
                FROM due
                WHERE o.id = due.id
                RETURNING o.id, o.app_id, o.source_kind, o.trigger_id, o.script_id, o.reply_to,
                          o.payload::text AS payload, o.origin_principal, o.trigger_depth,
                          o.root_execution_id, o.attempt_count, o.max_attempts, o.created_at
            )
            SELECT c.*, t.target_type, t.target, t.secret, t.enabled, t.max_attempts AS trigger_max_attempts
            FROM claimed c LEFT JOIN triggers t ON t.id = c.trigger_id
            """;

    /**
     * The raw floor's claim: the same statement shape (one SKIP LOCKED select of a batch, the same
     * claim columns set) returning only what any dispatcher must read to deliver, the id and payload.
     */
    static final String FLOOR = """
            WITH due AS (
                SELECT id FROM outbox
                WHERE claim_token IS NULL AND next_attempt_at <= now()
                ORDER BY next_attempt_at
                LIMIT ?                                              -- 1: batch size
                FOR UPDATE SKIP LOCKED
            )
            UPDATE outbox o
            SET claim_token = ?,                                     -- 2: fresh token of this claim
                claimed_by = ?,                                      -- 3: node name
                claimed_at = now(),
                lease_expires_at = now() + ? * interval '1 millisecond',  -- 4: lease
                attempt_count = o.attempt_count + 1
            FROM due
            WHERE o.id = due.id
            RETURNING o.id, o.payload::text
            """;

    /** The raw floor's finish: the claimed rows gone, in one statement. */
    static final String FLOOR_DELETE = "DELETE FROM outbox WHERE id = ANY (?)   -- 1: the claimed ids";

    static final long LEASE_MILLIS = 60_000;

    private ClaimSql() {
    }
}
