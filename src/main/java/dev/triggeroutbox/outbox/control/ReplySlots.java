package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.rest.control.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
     * (409). A transaction lock on the id holds a concurrent request with the same id until this
     * transaction ends, and its check then sees this row.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void take(OutboxId replyTo) throws SQLException {
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
                        throw new ApiException(409, "reply-taken", "Reply id taken",
                                "replyTo " + replyTo + " is already the reply id of another row: reply ids are one per row");
                    }
                }
            }
        }
    }
}
