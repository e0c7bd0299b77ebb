package dev.triggeroutbox.console.entity;

import dev.triggeroutbox.outbox.entity.ScriptId;
import java.util.UUID;

/**
 * One dead letter with everything kept about it: who wrote it and who dead-lettered it, the attempt budget it had
 * (null: its trigger's, or the default), the invoke waiting for its answer, and its trigger's target while the
 * trigger exists (null after it was deleted).
 */
public record KeptDeadLetter(DeadLetter letter, ScriptId scriptId, UUID replyTo, String originPrincipal, String deadBy,
        Integer maxAttempts, Target trigger) {

    /** Where its trigger delivers now, and whether the trigger is enabled. */
    public record Target(String targetType, String target, boolean enabled) {
    }
}
