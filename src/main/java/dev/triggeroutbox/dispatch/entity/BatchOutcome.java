package dev.triggeroutbox.dispatch.entity;

import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;

/** The results of one claimed batch, grouped the way they are finished: one statement per group. */
public final class BatchOutcome {

    /** A row to try again after {@code delayMillis}, measured from the database's now. */
    public record Retry(OutboxId id, long delayMillis, String error) {
    }

    /** A row to dead-letter with the reason. */
    public record Dead(OutboxId id, String error) {
    }

    /** A delivered row's answer, kept for its caller (rows with reply_to only). */
    public record Reply(OutboxId id, String body) {
    }

    private final List<OutboxId> delivered = new ArrayList<>();
    private final List<Reply> replies = new ArrayList<>();
    private final List<Retry> retries = new ArrayList<>();
    private final List<Dead> dead = new ArrayList<>();
    private final Set<TriggerId> disabledTriggers = new LinkedHashSet<>();

    public void delivered(OutboxId id) {
        delivered.add(id);
    }

    /** Keeps the answer of a delivered row whose caller waits for it. */
    public void reply(OutboxId id, String body) {
        replies.add(new Reply(id, storable(body)));
    }

    public List<Reply> replies() {
        return replies;
    }

    public void retry(OutboxId id, long delayMillis, String error) {
        retries.add(new Retry(id, delayMillis, storable(error)));
    }

    public void dead(OutboxId id, String error) {
        dead.add(new Dead(id, storable(error)));
    }

    /** The target is gone for good (a webhook answered 410): the trigger is disabled. */
    public void disable(TriggerId trigger) {
        disabledTriggers.add(trigger);
    }

    public Set<TriggerId> disabledTriggers() {
        return disabledTriggers;
    }

    public List<OutboxId> delivered() {
        return delivered;
    }

    public List<Retry> retries() {
        return retries;
    }

    public List<Dead> dead() {
        return dead;
    }

    /** PostgreSQL text holds no NUL character; one in a target's answer must not fail the whole batch. */
    static String storable(String text) {
        return text == null || text.indexOf('\0') < 0 ? text : text.replace("\0", "");
    }

    public int size() {
        return delivered.size() + retries.size() + dead.size();
    }
}
