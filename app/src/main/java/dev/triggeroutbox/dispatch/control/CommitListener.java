package dev.triggeroutbox.dispatch.control;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wakes this node's drain loop when a commit on any node enqueued: listens on the channel each node's
 * {@link CommitNotifier} sends its {@code NOTIFY} to (after {@link CommittedRows}) over one connection of the WAR's own datasource,
 * held for as long as the node dispatches, outside any transaction, and read through the PostgreSQL driver's
 * {@link PGConnection#getNotifications(int)} on a thread of its own (so the same code runs on WildFly and
 * Payara, with whatever pool settings the server has).
 * <p>
 * The poll stays the safety net: a connection that is lost (database restart, a terminated backend, a
 * network cut) is opened again with backoff, and each outage is logged once, a warning when it begins and an
 * info when it ends; when it is back the drain loop is woken, since commits in between were heard by nobody.
 * A link that died silently is found by repeating the {@code LISTEN} (a no-op for PostgreSQL) every
 * {@link #CHECK_EVERY_MILLIS}.
 */
@ApplicationScoped
public class CommitListener {

    private static final Logger LOG = Logger.getLogger(CommitListener.class.getName());
    /** The channel the producers notify and the dispatchers listen on. */
    public static final String CHANNEL = "outbox_wakeup";
    /** How long one read waits for notifications; also how long {@link #stop()} may wait for the thread to see it. */
    private static final int WAIT_MILLIS = 250;
    private static final long CHECK_EVERY_MILLIS = 10_000;
    private static final long FIRST_RETRY_MILLIS = 100;
    private static final long LAST_RETRY_MILLIS = 10_000;

    @Inject
    DataSource dataSource;

    @Inject
    DrainLoop drainLoop;

    @Resource
    ManagedThreadFactory threadFactory;

    private Thread thread;
    private volatile boolean closed;

    /** Starts listening, on a thread of its own; once per deployment. */
    public synchronized void start() {
        if (thread == null && !closed) {
            thread = threadFactory.newThread(this::listen);
            thread.setName("outbox-commit-listener");
            thread.start();
        }
    }

    @PreDestroy
    void close() {
        stop();
    }

    /** Stops listening and gives the connection back (its {@code LISTEN} undone); returns once the thread has ended. */
    public void stop() {
        Thread running;
        synchronized (this) {
            closed = true;
            running = thread;
        }
        if (running != null && running != Thread.currentThread()) {
            LockSupport.unpark(running);
            DrainLoop.endWithin(running, 4L * WAIT_MILLIS);
        }
    }

    private void listen() {
        long retry = FIRST_RETRY_MILLIS;
        long lostAt = 0;
        boolean lost = false;
        while (!closed) {
            try (Connection con = dataSource.getConnection()) {
                Channel channel = Channel.on(con);
                if (channel == null) {
                    LOG.warning(
                            "the outbox datasource is not PostgreSQL's JDBC driver: commits on other nodes wake this"
                                    + " node at its poll only");
                    return;
                }
                execute(con, "LISTEN " + CHANNEL);
                if (lost) {
                    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - lostAt);
                    LOG.info(() -> "listening for commits on other nodes again (after " + seconds + " s)");
                    lost = false;
                } else {
                    LOG.fine("listening for commits on other nodes");
                }
                retry = FIRST_RETRY_MILLIS;
                drainLoop.wake(); // what committed while nobody listened
                heed(con, channel);
                execute(con, "UNLISTEN *"); // the connection goes back to the pool
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                if (!lost) {
                    lost = true;
                    lostAt = System.nanoTime();
                    LOG.log(Level.WARNING,
                            "lost the connection that listens for commits on other nodes (" + e.getMessage()
                                    + "); until it is back their rows wait for this node's poll",
                            e);
                }
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(retry));
                retry = Math.min(2 * retry, LAST_RETRY_MILLIS);
            } catch (LinkageError e) {
                LOG.warning("the PostgreSQL driver's classes are not visible to the WAR (" + e
                        + "): commits on other nodes wake this node at its poll only");
                return;
            }
        }
    }

    /** Wakes the drain loop at each notification until the node stops; throws when the connection fails. */
    private void heed(Connection con, Channel channel) throws SQLException {
        long checked = System.nanoTime();
        while (!closed) {
            if (channel.heard(WAIT_MILLIS)) {
                drainLoop.wake();
            } else if (System.nanoTime() - checked > TimeUnit.MILLISECONDS.toNanos(CHECK_EVERY_MILLIS)) {
                execute(con, "LISTEN " + CHANNEL);
                checked = System.nanoTime();
            }
        }
    }

    /**
     * The driver's side of the listening connection. A class of its own, loaded only when the listener
     * starts: the bean's signatures name no driver type, so the WAR deploys (and says why it only polls) where
     * the driver's classes are not visible to it.
     */
    private static final class Channel {

        private final PGConnection pg;

        private Channel(PGConnection pg) {
            this.pg = pg;
        }

        /** The driver's connection under the pool's handle; null when it is not PostgreSQL's driver. */
        static Channel on(Connection con) throws SQLException {
            return con.isWrapperFor(PGConnection.class) ? new Channel(con.unwrap(PGConnection.class)) : null;
        }

        /** Waits up to {@code millis} for notifications; whether any came. */
        boolean heard(int millis) throws SQLException {
            PGNotification[] heard = pg.getNotifications(millis);
            return heard != null && heard.length > 0;
        }
    }

    private static void execute(Connection con, String sql) throws SQLException {
        try (Statement st = con.createStatement()) {
            st.execute(sql);
        }
    }
}
