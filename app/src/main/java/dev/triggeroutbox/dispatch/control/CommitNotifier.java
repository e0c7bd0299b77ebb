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
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Tells every node's {@link CommitListener} that rows were committed here: after a commit that enqueued, the
 * producer only raises a flag ({@link #committed()}), and a thread of this node's own sends one {@code NOTIFY}
 * on {@link CommitListener#CHANNEL} for all the commits since its last one, in a transaction of its own.
 * <p>
 * Why not the {@code NOTIFY} inside the producing transaction, where PostgreSQL would send it at commit: a
 * transaction that notified takes a database-wide lock while it commits, so every enqueue would queue behind
 * every other one. Measured in one bench run (docs/BENCHMARKS.md), that cost the Java API a third to a half of
 * its rows per second. Sent from here, only one transaction per node at a time takes that lock, the producers
 * never do, and a burst of commits costs one notification. A rolled-back enqueue still wakes nobody (the flag is
 * raised after the commit), at the price of one round trip more before the other nodes hear of it. Notifications
 * are at least {@code outbox.dispatch.notify-interval-ms} apart: under a steady stream of commits the notifier
 * would otherwise send one per round trip, each a transaction for PostgreSQL and a wake-up for every listener. A
 * failure to send is logged once per outage; the poll is the safety net.
 */
@ApplicationScoped
public class CommitNotifier {

    private static final Logger LOG = Logger.getLogger(CommitNotifier.class.getName());
    private static final String NOTIFY = "SELECT pg_notify('" + CommitListener.CHANNEL + "', '')";

    @Inject
    DataSource dataSource;

    @Inject
    DispatchSettings settings;

    @Resource
    ManagedThreadFactory threadFactory;

    private final OutageLog outage = new OutageLog(LOG, "telling the other nodes of commits");
    private final Object signal = new Object();
    private boolean wanted;
    private boolean closed;
    private Thread thread;

    /** A transaction that enqueued has committed on this node (cheap: raises a flag, wakes the sender). */
    public void committed() {
        if (!settings.notifyOnCommit()) {
            return;
        }
        synchronized (signal) {
            if (closed) {
                return;
            }
            wanted = true;
            if (thread == null) {
                thread = threadFactory.newThread(this::send);
                thread.setName("outbox-commit-notifier");
                thread.start();
            } else {
                signal.notifyAll();
            }
        }
    }

    @PreDestroy
    void close() {
        Thread running;
        synchronized (signal) {
            closed = true;
            running = thread;
            signal.notifyAll();
        }
        if (running != null) {
            DrainLoop.endWithin(running, 1_000);
        }
    }

    private void send() {
        long spacing = TimeUnit.MILLISECONDS.toNanos(settings.notifyIntervalMillis());
        while (awaitCommit()) {
            long sent = System.nanoTime();
            try (Connection con = dataSource.getConnection(); Statement st = con.createStatement()) {
                st.execute(NOTIFY); // auto-committed: the notification goes out now
                outage.succeeded();
            } catch (SQLException | RuntimeException e) {
                outage.failed(e);
                LockSupport.parkNanos(this, 100_000_000L); // the database may be down: not a loop at full speed
            }
            // the commits of the next moment share one notification (outbox.dispatch.notify-interval-ms)
            for (long left = sent + spacing - System.nanoTime(); left > 0
                    && !closing(); left = sent + spacing - System.nanoTime()) {
                LockSupport.parkNanos(this, left);
            }
        }
    }

    private boolean closing() {
        synchronized (signal) {
            return closed;
        }
    }

    /** Waits for a commit to tell of, and takes every one raised meanwhile; false once the node stops. */
    private boolean awaitCommit() {
        synchronized (signal) {
            while (!wanted && !closed) {
                try {
                    signal.wait();
                } catch (InterruptedException e) {
                    if (closed) {
                        return false;
                    }
                }
            }
            wanted = false;
            return !closed;
        }
    }
}
