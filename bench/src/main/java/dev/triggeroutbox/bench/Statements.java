package dev.triggeroutbox.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What each statement cost the database during a measured stretch, from {@code pg_stat_statements}: with
 * {@code -Dbench.pg-statements=true} the embedded PostgreSQL loads it, and the webhook part prints, per drain, the
 * statements that took the most time, per row drained and per call. Off by default (it costs the database a little).
 */
final class Statements {

    static final boolean WANTED = Boolean.getBoolean("bench.pg-statements");

    private Statements() {
    }

    static void reset(Database db) throws SQLException {
        if (!WANTED) {
            return;
        }
        try (Connection con = db.connect(); Statement st = con.createStatement()) {
            st.execute("SELECT pg_stat_statements_reset()");
        }
    }

    /** The {@code top} statements by total time since the last reset, one line each. */
    static List<String> top(Database db, long rows, int top) throws SQLException {
        List<String> lines = new ArrayList<>();
        if (!WANTED) {
            return lines;
        }
        try (Connection con = db.connect();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery("""
                        SELECT calls, total_exec_time + total_plan_time AS total, total_plan_time, rows,
                               regexp_replace(left(query, 400), '\\s+', ' ', 'g') AS q
                        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                        ORDER BY 2 DESC""" + " LIMIT " + top)) {
            while (rs.next()) {
                long calls = rs.getLong(1);
                double total = rs.getDouble(2);
                lines.add(String.format(Locale.ROOT,
                        "%6.1f µs/row  %7.2f ms/call (plan %.2f)  %,6d calls  %,8d rows  %s",
                        total * 1000 / rows, total / Math.max(1, calls), rs.getDouble(3) / Math.max(1, calls), calls,
                        rs.getLong(4), abbreviate(rs.getString(5))));
            }
        }
        return lines;
    }

    /** The statement's first words and what it works on, enough to tell the claim from the finish. */
    private static String abbreviate(String q) {
        String s = q.strip();
        return s.length() <= 110 ? s : s.substring(0, 110) + "…";
    }
}
