package dev.triggeroutbox.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads the test server's database directly, to check what a request wrote (or did not). */
public final class ItDatabase {

    private ItDatabase() {
    }

    public static long count(String sql, Object... args) {
        return query(sql, args, rs -> {
            rs.next();
            return rs.getLong(1);
        });
    }

    /** The one text value {@code sql} answers (null when it answers none). */
    public static String text(String sql, Object... args) {
        return query(sql, args, rs -> rs.next() ? rs.getString(1) : null);
    }

    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static <T> T query(String sql, Object[] args, Reader<T> reader) {
        try (Connection con = DriverManager.getConnection(System.getenv("DB_URL"), System.getenv("DB_USER"),
                System.getenv("DB_PASSWORD")); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return reader.read(rs);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes test data the API has no call for (e.g. dead letters with chosen errors); returns the rows changed. */
    public static int update(String sql, Object... args) {
        try (Connection con = DriverManager.getConnection(System.getenv("DB_URL"), System.getenv("DB_USER"),
                System.getenv("DB_PASSWORD")); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The rows an app has ever had (each id once, wherever it is now: outbox, dead letters, history) and its triggers.
     * A row of an earlier test that finishes meanwhile moves without changing the count (a dead one is in the dead
     * letters and the history at once: counted once), so the count changes only when something is written.
     */
    public static long everythingOf(java.util.UUID app) {
        return count(
                """
                SELECT (SELECT count(*) FROM (SELECT id FROM outbox WHERE app_id = ?
                                              UNION SELECT id FROM dead_letters WHERE app_id = ?
                                              UNION SELECT outbox_id FROM delivery_history WHERE app_id = ?) ids)
                     + (SELECT count(*) FROM triggers WHERE app_id = ?)""",
                app, app, app, app);
    }
}
