package dev.triggeroutbox.bench;

import dev.triggeroutbox.dispatch.control.Claims;

/**
 * The claims the harness runs outside the server: the product's own statement, and the raw floor's
 * leanest form of the same protocol.
 */
final class ClaimSql {

    /** The product's claim statement itself: what the backlog part times. */
    static final String PRODUCT = Claims.CLAIM;

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
            WHERE o.id = ANY (ARRAY(SELECT id FROM due))
            RETURNING o.id, o.payload::text
            """;

    /** The raw floor's finish: the claimed rows gone, in one statement. */
    static final String FLOOR_DELETE = "DELETE FROM outbox WHERE id = ANY (?)   -- 1: the claimed ids";

    static final long LEASE_MILLIS = 60_000;

    private ClaimSql() {
    }
}
