package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One reply slot per row. A reply id names the one answer of one row: if two rows shared one, the
 * answers after the first would be lost, and two finishing windows storing the same two answers in
 * opposite order would deadlock. Server-made ids ({@code invoke}) are random and never collide; a
 * producer that names its own {@code replyTo} gets it only while no row and no stored answer has it.
 */
@ApplicationScoped
public class ReplySlots {

    @Inject
    Jdbc jdbc;

    /**
     * Takes {@code replyTo} for a row about to be written in the caller's transaction, or refuses it
     * ({@code CONFLICT}). A transaction lock on the id holds a concurrent request with the same id until this
     * transaction ends, and its check then sees this row.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void take(OutboxId replyTo) {
        check(replyTo);
    }

    /** Takes every reply id of rows about to be written together (refused, {@code CONFLICT}, when two of them share one). */
    @Transactional(Transactional.TxType.MANDATORY)
    public void takeAll(List<OutboxId> replyTos) {
        Set<OutboxId> seen = new HashSet<>();
        for (OutboxId replyTo : replyTos) {
            if (!seen.add(replyTo)) {
                throw taken(replyTo);
            }
            check(replyTo);
        }
    }

    /**
     * Takes {@code replyTo} and runs {@code write} (the row naming it) in one transaction: the caller's, or
     * one of its own when there is none, so the lock holds until the row is committed.
     */
    @Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
    public <T> T writing(OutboxId replyTo, Supplier<T> write) {
        check(replyTo);
        return write.get();
    }

    private static OutboxRefusedException taken(OutboxId replyTo) {
        return OutboxRefusedException.conflict("reply-taken", "Reply id taken",
                "replyTo " + replyTo + " is already the reply id of another row: reply ids are one per row");
    }

    private void check(OutboxId replyTo) {
        String sql = """
                SELECT EXISTS (SELECT 1 FROM outbox WHERE reply_to = ?)       -- a row waiting for it
                    OR EXISTS (SELECT 1 FROM replies WHERE id = ?)            -- an answer stored under it
                """;
        long lock = replyTo.value().getMostSignificantBits() ^ replyTo.value().getLeastSignificantBits();
        boolean taken = jdbc.inConnection(con -> {
            Jdbc.first(con, "SELECT pg_advisory_xact_lock(?)", p -> p.bigint(lock), rs -> true);
            // a statement of its own after the lock: its snapshot sees what the lock's holder committed
            return Jdbc.first(con, sql, p -> p.uuid(replyTo.value()).uuid(replyTo.value()), rs -> rs.getBoolean(1))
                    .orElseThrow();
        });
        if (taken) {
            throw taken(replyTo);
        }
    }
}
