package dev.triggeroutbox.triggers.control;

import dev.triggeroutbox.platform.HousekeepingJob;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Forgets a webhook's replaced secret once its overlap has ended ({@code previous_secret_expires_at}):
 * deliveries stop signing with it at that moment anyway, and a secret nobody may use any more should not
 * stay in the database (or in its backups) for good.
 */
@ApplicationScoped
public class RotatedSecrets implements HousekeepingJob {

    /** Every 10 s: an expired secret signs nothing already; this bounds how long it stays stored (the table is small). */
    static final long EVERY_MILLIS = 10_000;
    static final int CHUNK = 1_000;

    @Override
    public Pruning pruning() {
        // retention 1 ms past the end of the overlap: the statement clears what has expired
        return new Pruning("rotated secrets", "outbox.webhook.secret-overlap-ms", 1, EVERY_MILLIS, """
                UPDATE triggers SET previous_secret = NULL, previous_secret_expires_at = NULL
                WHERE id = ANY (ARRAY(
                    SELECT id FROM triggers
                    WHERE previous_secret_expires_at < now() - ? * interval '1 millisecond'  -- 1: retention
                    LIMIT ?))                                                              -- 2: chunk
                """, CHUNK);
    }
}
