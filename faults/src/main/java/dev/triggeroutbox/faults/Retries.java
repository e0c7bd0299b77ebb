package dev.triggeroutbox.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Why rows were tried again: while a scenario runs, a thread of the harness reads every few hundred ms the
 * rows of the outbox that carry an error (a failed attempt waiting for its retry), and keeps each row's errors
 * by attempt. A row delivered twice with no crash and no fencing then says what its node saw of the attempt
 * the receiver had already got (a timeout, a closed connection). Rows whose retry comes sooner than the next
 * look are missed: the figure says what was seen, not all.
 */
final class Retries implements AutoCloseable {

    static final long LOOK_EVERY_MILLIS = 200;

    private final Postgres db;
    private final Map<UUID, StringBuffer> errors = new ConcurrentHashMap<>();
    private final Map<UUID, Integer> lastAttempt = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    private Retries(Postgres db) {
        this.db = db;
        this.thread = new Thread(this::watch, "retries");
        this.thread.setDaemon(true);
    }

    static Retries watch(Postgres db) {
        Retries r = new Retries(db);
        r.thread.start();
        return r;
    }

    /** " #1 webhook at … did not answer within 8000 ms", or "none seen". */
    String of(UUID row) {
        StringBuffer b = errors.get(row);
        return b == null ? "none seen" : b.toString().trim();
    }

    private void watch() {
        while (!closed) {
            try (Connection con = db.connect(); PreparedStatement ps = con.prepareStatement("""
                    SELECT id, attempt_count, left(last_error, 160) FROM outbox WHERE last_error IS NOT NULL""")) {
                while (!closed) {
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            note(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3));
                        }
                    }
                    Thread.sleep(LOOK_EVERY_MILLIS);
                }
            } catch (SQLException e) {
                pause(); // the database is down (scenario 4) or restarting: look again later
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void note(UUID row, int attempt, String error) {
        Integer seen = lastAttempt.put(row, attempt);
        if (seen == null || seen != attempt) {
            errors.computeIfAbsent(row, k -> new StringBuffer()).append(" #").append(attempt).append(' ').append(error);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
