package dev.triggeroutbox.replies.control;

import dev.triggeroutbox.outbox.entity.OutboxId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * The answers of request/reply rows. The dispatcher stores an answer in the same transaction that
 * finishes the row, on whichever node delivered it; a caller waiting here reads it from the
 * database. When this node finished the row the wait ends at once (a local signal); when another
 * node did, the next look at the table finds it (every {@link #LOOK_EVERY_MILLIS} ms).
 */
@ApplicationScoped
public class Replies {

    static final long LOOK_EVERY_MILLIS = 100;

    /** What a target answered: delivered with a body (may be null), or dead with the reason. */
    public record Reply(UUID appId, OutboxId row, boolean delivered, String body, String error) {
    }

    /** A row still on its way to the target whose answer is awaited. */
    public record Pending(UUID appId, OutboxId row) {
    }

    @Inject
    DataSource dataSource;

    public Optional<Pending> pending(UUID replyTo) throws SQLException {
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(
                "SELECT app_id, id FROM outbox WHERE reply_to = ? LIMIT 1")) {
            ps.setObject(1, replyTo);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new Pending(rs.getObject(1, UUID.class), new OutboxId(rs.getObject(2, UUID.class))))
                        : Optional.empty();
            }
        }
    }

    private final Map<UUID, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

    public Optional<Reply> find(UUID replyTo) throws SQLException {
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(
                "SELECT app_id, outbox_id, outcome, body, error FROM replies WHERE id = ?")) {
            ps.setObject(1, replyTo);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Reply(rs.getObject(1, UUID.class), new OutboxId(rs.getObject(2, UUID.class)),
                        "delivered".equals(rs.getString(3)), rs.getString(4), rs.getString(5)));
            }
        }
    }

    /** Waits up to {@code timeoutMillis} for the answer to {@code replyTo}. Holds no transaction. */
    public Optional<Reply> await(UUID replyTo, long timeoutMillis) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        CompletableFuture<Void> signal = waiting.computeIfAbsent(replyTo, id -> new CompletableFuture<>());
        try {
            while (true) {
                Optional<Reply> reply = find(replyTo);
                long left = deadline - System.nanoTime();
                if (reply.isPresent() || left <= 0) {
                    return reply;
                }
                if (signal.isDone()) {
                    // signalled, but the row was only rescheduled (or fenced): wait for the next signal
                    CompletableFuture<Void> fresh = new CompletableFuture<>();
                    waiting.replace(replyTo, signal, fresh);
                    signal = fresh;
                }
                try {
                    signal.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(LOOK_EVERY_MILLIS)), TimeUnit.NANOSECONDS);
                } catch (TimeoutException | ExecutionException e) {
                    // look again
                }
            }
        } finally {
            waiting.remove(replyTo);
        }
    }

    /** Called by the dispatcher after it finished rows that carry reply_to: wake their local waiters. */
    public void finished(Iterable<UUID> replyTos) {
        for (UUID id : replyTos) {
            CompletableFuture<Void> signal = waiting.get(id);
            if (signal != null) {
                signal.complete(null);
            }
        }
    }
}
