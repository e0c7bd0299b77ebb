package dev.triggeroutbox.console.entity;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import java.time.OffsetDateTime;

/**
 * Dead letters of one app, trigger (null: rows without one), source kind and failure ({@code outbox_error_group} of
 * their last error): how many, when the first and the last died, and the newest one's id and error.
 */
public record DeadLetterGroup(AppId appId, TriggerId triggerId, String sourceKind, String errorGroup, long count,
        OffsetDateTime firstSeen, OffsetDateTime lastSeen, OutboxId sampleId, String sampleError) {
}
