package dev.triggeroutbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The few JDBC shorthands the harness uses: one statement, parameters in order. */
final class Jdbc {

    private Jdbc() {
    }

    static int update(Connection con, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(con, sql, args)) {
            return ps.executeUpdate();
        }
    }

    static void execute(Connection con, String sql) throws SQLException {
        try (var st = con.createStatement()) {
            st.execute(sql);
        }
    }

    static long queryLong(Connection con, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(con, sql, args); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static String queryString(Connection con, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(con, sql, args); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static PreparedStatement prepare(Connection con, String sql, Object... args) throws SQLException {
        PreparedStatement ps = con.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }
}
