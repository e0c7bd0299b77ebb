package dev.triggeroutbox.replies.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.control.UnknownTriggerException;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.rest.control.IdempotencyKeys;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import java.util.UUID;

/**
 * Starts an invoke: enqueues its row (with a fresh reply id) and commits, so the row is delivered
 * whatever happens to the caller. With an {@code Idempotency-Key}, a repeated request starts
 * nothing and gets the first request's reply id back, so it waits for the same answer.
 */
@ApplicationScoped
public class InvokeRequests {

    /** An invoke on its way: its row, the reply to wait for, and the pending answer (202). */
    public record Started(OutboxId row, UUID replyId, IdempotencyKeys.Answer pending) {
    }

    @Inject
    Outbox outbox;

    @Inject
    IdempotencyKeys idempotency;

    /**
     * @param row     the row to enqueue, without its reply id
     * @param replies where answers are fetched: the absolute path of {@code …/replies}
     */
    @Transactional(rollbackOn = Exception.class)
    public Started start(String principal, String key, String path, String body, NewOutboxRow row, String replies) {
        IdempotencyKeys.Answer answer = idempotency.once(principal, key, "POST", path, body, () -> {
            OutboxId replyTo = OutboxId.random();
            OutboxId id;
            try {
                id = outbox.enqueue(row.withReplyTo(replyTo));
            } catch (UnknownTriggerException e) {
                // deleted since the caller looked it up
                throw OutboxRefusedException.notFound("trigger " + row.triggerId());
            }
            JsonObject pending = Jsons.object().add("id", id.toString()).add("replyId", replyTo.toString())
                    .add("status", "pending").build();
            return new IdempotencyKeys.Answer(202, replies + "/" + replyTo, pending.toString());
        });
        JsonObject pending = Jsons.reader(answer.body()).readObject();
        return new Started(OutboxId.parse(pending.getString("id")), UUID.fromString(pending.getString("replyId")),
                answer);
    }
}
