package dev.triggeroutbox.testkit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/** Direct SQL for tests that set up or inspect the tables behind the code under test. */
public final class Sql {

    private Sql() {
    }

    public static DataSource dataSource() {
        try {
            return (DataSource) new InitialContext().lookup("java:comp/env/jdbc/outbox");
        } catch (NamingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static int update(String sql, Object... args) {
        return on(dataSource()).update(sql, args);
    }

    public static long count(String sql, Object... args) {
        return on(dataSource()).count(sql, args);
    }

    public static List<Object[]> query(String sql, Object... args) {
        return on(dataSource()).query(sql, args);
    }

    /** The same on any data source: an embedded PostgreSQL of a test without a server. */
    public static On on(DataSource dataSource) {
        return new On(dataSource);
    }

    /** Direct SQL on one data source; each call its own connection, auto-committed. */
    public record On(DataSource dataSource) {

        public int update(String sql, Object... args) {
            try (Connection con = dataSource.getConnection(); PreparedStatement ps = prepare(con, sql, args)) {
                return ps.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The first column of the first row, a number. */
        public long count(String sql, Object... args) {
            return ((Number) query(sql, args).get(0)[0]).longValue();
        }

        /** The first column of the first row, as text. */
        public String text(String sql, Object... args) {
            Object value = query(sql, args).get(0)[0];
            return value == null ? null : value.toString();
        }

        public List<Object[]> query(String sql, Object... args) {
            try (Connection con = dataSource.getConnection();
                    PreparedStatement ps = prepare(con, sql, args);
                    ResultSet rs = ps.executeQuery()) {
                List<Object[]> rows = new ArrayList<>();
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    rows.add(row);
                }
                return rows;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
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
