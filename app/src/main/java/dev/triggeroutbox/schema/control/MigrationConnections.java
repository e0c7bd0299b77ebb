package dev.triggeroutbox.schema.control;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The datasource Flyway migrates through: every connection it takes waits at most a lock timeout for a
 * table lock. A migration's {@code ALTER TABLE} queues behind any long transaction on that table, and
 * while it queues every writer of the table queues behind it: without a bound, one slow report could stop
 * all enqueues for its whole length. With one, the migration fails fast instead (nothing is applied; the
 * deployment says so and can be retried). The setting is reset before a connection goes back to the
 * server's pool, so the application's own connections never carry it.
 */
public final class MigrationConnections {

    /** PostgreSQL's SQLSTATE for a lock not obtained in time. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private MigrationConnections() {
    }

    /** Whether a failure (Flyway's, with the driver's exception somewhere among its causes) was a lock timeout. */
    public static boolean lockTimedOut(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && LOCK_NOT_AVAILABLE.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    public static DataSource withLockTimeout(DataSource pooled, Duration lockTimeout) {
        String set = "SET lock_timeout = " + lockTimeout.toMillis(); // milliseconds, a number we made
        InvocationHandler source = (proxy, method, args) -> {
            Object result = call(pooled, method, args);
            if (method.getName().equals("getConnection")) {
                Connection con = (Connection) result;
                try (Statement st = con.createStatement()) {
                    st.execute(set);
                }
                return connection(con);
            }
            return result;
        };
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                source);
    }

    private static Connection connection(Connection con) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("close") && !con.isClosed()) {
                try (Statement st = con.createStatement()) {
                    if (!con.getAutoCommit()) {
                        con.rollback(); // RESET must not join, or be lost with, a transaction left open
                    }
                    st.execute("RESET lock_timeout");
                } catch (SQLException e) {
                    // a connection that cannot be reset is closed all the same; the pool validates it
                }
            }
            return call(con, method, args);
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                handler);
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
