package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.api.OutboxUnavailableException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * Tells a failure that means the database cannot be reached (down, restarting, out of connections, the server's
 * pool giving none) from one of its errors. The first passes when the database is back, so the API answers it
 * 503 with a time to try again; the second is our bug, a 500 with an incident id.
 */
public final class DatabaseOutages {

    /**
     * PostgreSQL's SQLStates besides class 08 (connection exception): the server shutting down (57P01 admin,
     * 57P02 crash), starting or recovering (57P03), out of connection slots (53300).
     */
    private static final Set<String> UNREACHABLE_STATES = Set.of("57P01", "57P02", "57P03", "53300");

    /**
     * The resource adapters' refusal to give a connection (IronJacamar's IJ000453 "Unable to get managed connection",
     * a pool's blocking timeout, Payara's allocation failure), named rather than imported: the server's pool wraps
     * it in an SQLException, whichever of the two API versions it implements.
     */
    private static final Set<String> POOL_REFUSALS = Set.of("jakarta.resource.ResourceException",
            "javax.resource.ResourceException");

    private DatabaseOutages() {
    }

    /**
     * Whether {@code failure} (or what it wraps) says the database cannot be reached. An
     * {@link OutboxUnavailableException} counts by what it wraps, when that is an SQLException, so the database's own
     * errors stay errors; without one it counts as an outage.
     */
    public static boolean in(Throwable failure) {
        boolean unavailable = false;
        boolean sql = false;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            unavailable |= t instanceof OutboxUnavailableException;
            if (t instanceof SQLException e) {
                sql = true;
                if (unreachable(e)) {
                    return true;
                }
            }
        }
        return unavailable && !sql;
    }

    private static boolean unreachable(SQLException e) {
        int looked = 0;
        for (SQLException s = e; s != null && looked++ < 10; s = s.getNextException()) { // a batch's chain, bounded
            String state = s.getSQLState();
            if (s instanceof SQLTransientConnectionException || s instanceof SQLNonTransientConnectionException
                    || s instanceof SQLRecoverableException || (state != null
                            && (state.startsWith("08") || UNREACHABLE_STATES.contains(state)))
                    || (s.getCause() != null && isPoolRefusal(s.getCause().getClass()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isPoolRefusal(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (POOL_REFUSALS.contains(c.getName())) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the log says of an outage: each link's class, SQLState and message. The database's text belongs in the
     * server log, never in an answer.
     */
    public static String summary(Throwable failure) {
        StringBuilder s = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (!s.isEmpty()) {
                s.append(" <- ");
            }
            s.append(t.getClass().getSimpleName());
            if (t instanceof SQLException e && e.getSQLState() != null) {
                s.append(" [").append(e.getSQLState()).append(']');
            }
            s.append(": ").append(t.getMessage());
        }
        return s.toString();
    }
}
