package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.entity.OutboxId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * One reply slot per row. A reply id names the one answer of one row: if two rows shared one, the
 * answers after the first would be lost, and two finishing windows storing the same two answers in
 * opposite order would deadlock. Server-made ids ({@code invoke}) are random and never collide; a
 * producer that names its own {@code replyTo} gets it only while no row and no stored answer has it.
 */
@ApplicationScoped
public class ReplySlots {

    @Inject
    DataSource dataSource;

    /**
     * Takes {@code replyTo} for a row about to be written in the caller's transaction, or refuses it
     * ({@code CONFLICT}). A transaction lock on the id holds a concurrent request with the same id until this
     * transaction ends, and its check then sees this row.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void take(OutboxId replyTo) throws SQLException {
        check(replyTo);
    }

    /** Takes every reply id of rows about to be written together (refused, {@code CONFLICT}, when two of them share one). */
    @Transactional(Transactional.TxType.MANDATORY)
    public void takeAll(List<OutboxId> replyTos) throws SQLException {
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
    public <T> T writing(OutboxId replyTo, Write<T> write) throws SQLException {
        check(replyTo);
        return write.run();
    }

    /** A write that may fail with the database. */
    @FunctionalInterface
    public interface Write<T> {
        T run() throws SQLException;
    }

    private static OutboxRefusedException taken(OutboxId replyTo) {
        return OutboxRefusedException.conflict("reply-taken", "Reply id taken",
                "replyTo " + replyTo + " is already the reply id of another row: reply ids are one per row");
    }

    private void check(OutboxId replyTo) throws SQLException {
        String sql = """
                SELECT EXISTS (SELECT 1 FROM outbox WHERE reply_to = ?)       -- 1: a row waiting for it
                    OR EXISTS (SELECT 1 FROM replies WHERE id = ?)            -- 2: an answer stored under it
                """;
        try (Connection con = dataSource.getConnection()) {
            try (PreparedStatement lock = con.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
                lock.setLong(1, replyTo.value().getMostSignificantBits() ^ replyTo.value().getLeastSignificantBits());
                lock.execute();
            }
            // a statement of its own after the lock: its snapshot sees what the lock's holder committed
            try (PreparedStatement ps = con.prepareStatement(sql)) {
                ps.setObject(1, replyTo.value());
                ps.setObject(2, replyTo.value());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        throw taken(replyTo);
                    }
                }
            }
        }
    }
}
