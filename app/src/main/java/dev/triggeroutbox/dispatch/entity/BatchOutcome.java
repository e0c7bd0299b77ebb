package dev.triggeroutbox.dispatch.entity;

import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.OutboxId;
import java.util.ArrayList;
import java.util.List;

/**
 * The results of one finishing window (rows whose deliveries ended within a few milliseconds of each
 * other, of any claims), grouped the way they are finished: one statement per group. Every row carries
 * the token of the claim it was delivered under, and is finished only while that claim still holds.
 */
public final class BatchOutcome {

    /**
     * What the delivery log keeps of an attempt beside its outcome: the HTTP status a webhook answered with and the
     * start of its answer to a refusal ({@link #ANSWER_CHARS}), each null when there is none.
     */
    public record Attempt(Integer httpStatus, String answer) {

        /** An attempt with nothing to keep but its outcome (a handler's, a JMS send, a Kafka record). */
        public static final Attempt PLAIN = new Attempt(null, null);

        public Attempt {
            answer = answer == null
                    ? null
                    : storable(answer.length() <= ANSWER_CHARS ? answer : answer.substring(0, ANSWER_CHARS));
        }
    }

    /** The most of a refusal's answer the delivery log keeps: 1 KiB of text. */
    public static final int ANSWER_CHARS = 1024;

    /** A delivered row. */
    public record Delivered(OutboxId id, ClaimToken token, Attempt attempt) {
    }

    /** A row to try again after {@code delayMillis}, measured from the database's now. */
    public record Retry(OutboxId id, ClaimToken token, long delayMillis, String error, Attempt attempt) {
    }

    /**
     * A row to dead-letter with the reason; {@code disableTrigger} when its target is gone for good (a webhook
     * answered 410): the trigger is disabled by the same fenced statement, so a late 410 disables nothing.
     */
    public record Dead(OutboxId id, ClaimToken token, String error, boolean disableTrigger, Attempt attempt) {
    }

    /** A row whose delivery never started: claimable again, its attempt given back. */
    public record Released(OutboxId id, ClaimToken token) {
    }

    /** A row whose attempt did not deliver (to retry, dead or released): finished as cancelled if it was cancelled in flight. */
    public record Undelivered(OutboxId id, ClaimToken token) {
    }

    /** A delivered row's answer, kept for its caller (rows with reply_to only). */
    public record Reply(OutboxId id, String body) {
    }

    private final List<Delivered> delivered = new ArrayList<>();
    private final List<Reply> replies = new ArrayList<>();
    private final List<Retry> retries = new ArrayList<>();
    private final List<Dead> dead = new ArrayList<>();
    private final List<Released> released = new ArrayList<>();

    public void delivered(OutboxId id, ClaimToken token) {
        delivered(id, token, Attempt.PLAIN);
    }

    public void delivered(OutboxId id, ClaimToken token, Attempt attempt) {
        delivered.add(new Delivered(id, token, attempt));
    }

    /** Keeps the answer of a delivered row whose caller waits for it. */
    public void reply(OutboxId id, String body) {
        replies.add(new Reply(id, storable(body)));
    }

    public List<Reply> replies() {
        return replies;
    }

    public void retry(OutboxId id, ClaimToken token, long delayMillis, String error) {
        retry(id, token, delayMillis, error, Attempt.PLAIN);
    }

    public void retry(OutboxId id, ClaimToken token, long delayMillis, String error, Attempt attempt) {
        retries.add(new Retry(id, token, delayMillis, storable(error), attempt));
    }

    public void dead(OutboxId id, ClaimToken token, String error) {
        dead(id, token, error, false);
    }

    public void dead(OutboxId id, ClaimToken token, String error, boolean disableTrigger) {
        dead(id, token, error, disableTrigger, Attempt.PLAIN);
    }

    public void dead(OutboxId id, ClaimToken token, String error, boolean disableTrigger, Attempt attempt) {
        dead.add(new Dead(id, token, storable(error), disableTrigger, attempt));
    }

    public void release(OutboxId id, ClaimToken token) {
        released.add(new Released(id, token));
    }

    public List<Delivered> delivered() {
        return delivered;
    }

    public List<Retry> retries() {
        return retries;
    }

    public List<Dead> dead() {
        return dead;
    }

    public List<Released> released() {
        return released;
    }

    /** Every row of this window whose attempt did not deliver, whatever is to become of it. */
    public List<Undelivered> undelivered() {
        List<Undelivered> rows = new ArrayList<>(retries.size() + dead.size() + released.size());
        retries.forEach(r -> rows.add(new Undelivered(r.id(), r.token())));
        dead.forEach(d -> rows.add(new Undelivered(d.id(), d.token())));
        released.forEach(r -> rows.add(new Undelivered(r.id(), r.token())));
        return rows;
    }

    /** PostgreSQL text holds no NUL character; one in a target's answer must not fail the whole batch. */
    static String storable(String text) {
        return text == null || text.indexOf('\0') < 0 ? text : text.replace("\0", "");
    }

    public int size() {
        return delivered.size() + retries.size() + dead.size() + released.size();
    }
}
