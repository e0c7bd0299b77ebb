package dev.triggeroutbox.dispatch;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import dev.triggeroutbox.testkit.SecondNode;
import dev.triggeroutbox.testkit.WildFlyOnly;
import jakarta.json.JsonArray;
import java.net.URL;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The wake-up across nodes (PostgreSQL LISTEN/NOTIFY). Two nodes on one database: Arquillian's WildFly
 * (it-node-1) produces but does not dispatch (its deployment sets {@code outbox.dispatch.enabled=false}), and a
 * second WildFly (it-node-2) dispatches with a poll of {@value #POLL_MILLIS} ms. Nothing of node 1 reaches node 2
 * but the notification: a row delivered within {@link #QUICK} of its commit was woken by it, not by the poll.
 * <p>
 * Switched off ({@code -Dit.notify=false} sets {@code outbox.dispatch.notify=false} on the producing node), the
 * wake-up tests fail: each row then waits for node 2's next tick, up to 30 s, and at most one of the rows
 * {@link #oneEventAtATimeIsDeliveredLongBeforeThePoll} sends one by one can fall near a tick.
 */
@WildFlyOnly("the second node is a WildFly process started from the build's installation")
@ExtendWith(ArquillianExtension.class)
class CommitNotifyIT {

    private static final long POLL_MILLIS = 30_000;
    /** Well under the poll interval, and far over what the wake-up takes even on a loaded machine. */
    private static final Duration QUICK = Duration.ofSeconds(3);
    /** Under a load that keeps this machine busy: still a third of the poll interval. */
    private static final Duration LOADED = Duration.ofMillis(POLL_MILLIS / 3);
    /** {@code outbox.dispatch.notify-interval-ms}, the product's default. */
    private static final long NOTIFY_INTERVAL_MILLIS = 5;
    private static final Pattern SEQ = Pattern.compile("\"seq\":\\s*(\\d+)");
    private static final String LISTENER = "SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN outbox_wakeup'";

    private static SecondNode dispatching;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox().addClass(CommitProbe.class).addAsResource(new StringAsset(
                "outbox.dispatch.enabled=false\noutbox.dispatch.notify=" + System.getProperty("it.notify", "true")
                        + "\n"),
                "META-INF/microprofile-config.properties");
    }

    @ArquillianResource
    URL base;

    private Api producing;
    private Receiver receiver;
    private final UUID app = UUID.randomUUID();

    @BeforeAll
    static void startDispatchingNode() throws Exception {
        dispatching = SecondNode.start("-Doutbox.dispatch.poll-interval-ms=" + POLL_MILLIS);
        assertTrue(dispatching.log().contains("poll=" + POLL_MILLIS + "ms"), "the dispatching node polls every 30 s");
    }

    @AfterAll
    static void stopDispatchingNode() {
        if (dispatching != null) {
            dispatching.close();
        }
    }

    @BeforeEach
    void start() throws Exception {
        producing = new Api(base);
        receiver = new Receiver();
        receiver.script("/hook", n -> Receiver.Answer.of(204));
        Api.Reply r = producing.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"kv","target":{"type":"webhook","url":"%s"}}""".formatted(receiver.url("/hook")));
        assertEquals(201, r.status(), r.toString());
    }

    @AfterEach
    void stop() {
        receiver.close();
        producing.close();
    }

    @Test
    void oneEventAtATimeIsDeliveredLongBeforeThePoll() {
        for (int i = 1; i <= 5; i++) {
            publishAndSeeDelivered(i);
        }
    }

    @Test
    void theListenerComesBackAfterItsBackendIsTerminatedAndSaysSoOnce() throws Exception {
        publishAndSeeDelivered(1);
        long before = listenerPid();
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                + " WHERE query = 'LISTEN outbox_wakeup') t"));
        Eventually.until(Duration.ofSeconds(30), () -> {
            long now = ItDatabase.count("SELECT coalesce(max(pid), 0) FROM (" + LISTENER + ") l");
            return now != 0 && now != before;
        }, () -> "no new listener; the dispatching node's log:\n" + tail());
        publishAndSeeDelivered(2);
        String log = dispatching.log();
        assertEquals(1, occurrences(log, "lost the connection that listens for commits on other nodes"), log);
        assertEquals(1, occurrences(log, "listening for commits on other nodes again"), log);
    }

    @Test
    void aRolledBackEnqueueNotifiesNobody() throws SQLException {
        try (Connection con = listening()) {
            PGConnection pg = con.unwrap(PGConnection.class);
            Api.Reply rolledBack = producing.post(ADMIN, "it/commit-probe/rollback", "{\"app\":\"" + app + "\"}");
            assertEquals(200, rolledBack.status(), rolledBack.toString());
            assertEquals(1, rolledBack.object().getInt("rows"), "the transaction had written a row");
            assertEquals(0, heard(pg, Duration.ofSeconds(2)), "a rollback notified");
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app));
            // the same listener does hear a commit: the silence above was the rollback's
            Api.Reply committed = producing.post(ADMIN, "apps/" + app + "/events",
                    "{\"sourceKind\":\"kv\",\"payload\":{}}");
            assertEquals(202, committed.status(), committed.toString());
            assertEquals(1, heard(pg, Duration.ofSeconds(5)), "a commit notifies once");
        }
    }

    /**
     * A steady stream of commits shares notifications: at 1,000 commits/s the producing node sends at most one per
     * {@code outbox.dispatch.notify-interval-ms} (its default, {@value #NOTIFY_INTERVAL_MILLIS} ms), where it sent
     * one per round trip of its notifier before (one per commit at this rate), and every row is still delivered.
     */
    @Test
    void aStreamOfCommitsSharesNotifications() throws SQLException {
        try (Connection con = listening()) {
            PGConnection pg = con.unwrap(PGConnection.class);
            heard(pg, Duration.ofMillis(500)); // what earlier tests left
            long start = System.nanoTime();
            int events = load(1_000, 2).toStart().length;
            int heard = heard(pg, Duration.ofSeconds(1));
            long window = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(heard >= 1, "no notification for " + events + " commits");
            assertTrue(heard <= window / NOTIFY_INTERVAL_MILLIS + 2, heard + " notifications for " + events
                    + " commits in " + window + " ms: more than one per " + NOTIFY_INTERVAL_MILLIS + " ms");
        }
    }

    /**
     * Commit → delivery start at 500 events/s, one JTA transaction per event on the producing node, delivered by
     * the other. The commit instant is taken after the commit on node 1, the start when the receiver has the
     * request, both from the machine's wall clock; the figures of the measured run (after an unmeasured warm-up of
     * the same load) are printed (docs/BENCHMARKS.md).
     */
    @Test
    void latencyAtFiveHundredEventsPerSecondFromANodeThatDoesNotDispatch() {
        int rate = 500;
        int seconds = Integer.getInteger("it.notify.seconds", 10);
        load(rate, 3);
        Latencies measured = load(rate, seconds);
        double[] millis = sorted(measured.toStart());
        int events = millis.length;
        System.out.printf("commit -> delivery start, %d events at %d/s, producing node not dispatching, poll %d ms: "
                + "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n", events, rate, POLL_MILLIS, at(millis, 0.5),
                at(millis, 0.9), at(millis, 0.99), at(millis, 1));
        double[] toClaim = sorted(measured.toClaim());
        double[] claimToStart = new double[events];
        for (int i = 0; i < events; i++) {
            claimToStart[i] = measured.toStart()[i] - measured.toClaim()[i];
        }
        Arrays.sort(claimToStart);
        System.out.printf("  of which commit -> claim (the wake-up and the drain loop): p50 %.2f ms, p99 %.2f ms, max "
                + "%.2f ms; claim -> the receiver has the request (the webhook path): p50 %.2f ms, p99 %.2f ms, max "
                + "%.2f ms%n", at(toClaim, 0.5), at(toClaim, 0.99), at(toClaim, 1), at(claimToStart, 0.5),
                at(claimToStart, 0.99), at(claimToStart, 1));
        // two nodes, PostgreSQL, the receiver and this load on two cores fall behind 500/s at times (CI of a2f1709: p50
        // 1,966 ms, max 3,591 ms; the single-node benchmark measures the wake-up itself): what this asserts is that no
        // row waited for the poll, which would take up to 30 s
        assertTrue(millis[events - 1] < LOADED.toMillis(), "the slowest start took " + millis[events - 1] + " ms");
    }

    private static double[] sorted(double[] values) {
        double[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }

    /** The value at quantile {@code q} of {@code sorted} (the nearest rank; 1: the largest). */
    private static double at(double[] sorted, double q) {
        return sorted[Math.max(0, (int) Math.ceil(sorted.length * q) - 1)];
    }

    /**
     * Milliseconds from each event's commit to its delivery start, and to the start of the claim that took its row
     * ({@code claimed_at}: the claim statement's {@code now()}, on the same machine's clock), by event.
     */
    private record Latencies(double[] toStart, double[] toClaim) {
    }

    /** Runs the probe's load and waits for every delivery and its history line; the latencies of each event. */
    private Latencies load(int rate, int seconds) {
        int before = receiver.rowsAt("/hook").size();
        Api.Reply r = producing.post(ADMIN, "it/commit-probe/load", """
                {"app":"%s","rate":%d,"seconds":%d}""".formatted(app, rate, seconds));
        assertEquals(200, r.status(), r.toString());
        JsonArray commits = r.object().getJsonArray("commits");
        int events = commits.size();
        Eventually.until(Duration.ofSeconds(30), () -> receiver.rowsAt("/hook").size() >= before + events,
                () -> receiver.rowsAt("/hook").size() - before + " of " + events + " delivered");
        Map<Integer, Long> started = new HashMap<>();
        Map<Integer, String> rowIds = new HashMap<>();
        for (Receiver.Request request : receiver.rowsAt("/hook").subList(before, before + events)) {
            Matcher m = SEQ.matcher(request.body());
            assertTrue(m.find(), request.body());
            int seq = Integer.parseInt(m.group(1));
            if (started.putIfAbsent(seq, CommitProbe.micros(request.at())) == null) {
                rowIds.put(seq, request.header("webhook-id"));
            }
        }
        Map<String, Long> claimed = new HashMap<>();
        Eventually.until(Duration.ofSeconds(30), () -> {
            claimed.putAll(claimedMicros());
            return claimed.keySet().containsAll(rowIds.values());
        }, () -> "history lines missing for the delivered rows");
        double[] toStart = new double[events];
        double[] toClaim = new double[events];
        for (int i = 0; i < events; i++) {
            long committed = commits.getJsonNumber(i).longValue();
            assertTrue(committed > 0, "event " + i + " did not commit");
            toStart[i] = (started.get(i) - committed) / 1000.0;
            toClaim[i] = (claimed.get(rowIds.get(i)) - committed) / 1000.0;
        }
        return new Latencies(toStart, toClaim);
    }

    /** The app's rows in the delivery history: row id → when the claim that delivered it began, in µs. */
    private Map<String, Long> claimedMicros() {
        String all = ItDatabase.text("""
                SELECT string_agg(outbox_id || '=' || (extract(epoch FROM claimed_at) * 1000000)::bigint, ',')
                FROM delivery_history WHERE app_id = ? AND claimed_at IS NOT NULL""", app);
        Map<String, Long> claimed = new HashMap<>();
        for (String pair : all == null ? new String[0] : all.split(",")) {
            int eq = pair.indexOf('=');
            claimed.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
        }
        return claimed;
    }

    /** Publishes one event on the producing node and waits for its delivery, then until nothing is left in flight. */
    private void publishAndSeeDelivered(int n) {
        int before = receiver.rowsAt("/hook").size();
        Api.Reply r = producing.post(ADMIN, "apps/" + app + "/events",
                "{\"sourceKind\":\"kv\",\"payload\":{\"n\":" + n + "}}");
        assertEquals(202, r.status(), r.toString());
        Eventually.until(QUICK, () -> receiver.rowsAt("/hook").size() > before,
                () -> "event " + n + " not delivered within " + QUICK + " (the poll is " + POLL_MILLIS + " ms)");
        // its finish wakes the dispatcher once more; the next event must owe nothing to that
        Eventually.until(Duration.ofSeconds(10),
                () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app) == 0,
                () -> "row not finished");
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long listenerPid() {
        Eventually.until(Duration.ofSeconds(10),
                () -> ItDatabase.count("SELECT count(*) FROM (" + LISTENER + ") l") == 1,
                () -> "not one listener: " + ItDatabase.count("SELECT count(*) FROM (" + LISTENER + ") l"));
        return ItDatabase.count("SELECT max(pid) FROM (" + LISTENER + ") l");
    }

    /** A connection of this test's own that listens on the outbox's channel. */
    private static Connection listening() throws SQLException {
        Connection con = DriverManager.getConnection(System.getenv("DB_URL"), System.getenv("DB_USER"),
                System.getenv("DB_PASSWORD"));
        try (Statement st = con.createStatement()) {
            st.execute("LISTEN outbox_wakeup");
        } catch (SQLException e) {
            con.close();
            throw e;
        }
        return con;
    }

    /** Notifications heard within {@code within}. */
    private static int heard(PGConnection pg, Duration within) throws SQLException {
        int heard = 0;
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            PGNotification[] n = pg.getNotifications(100);
            heard += n == null ? 0 : n.length;
        }
        return heard;
    }

    private static int occurrences(String text, String what) {
        int count = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            count++;
        }
        return count;
    }

    private static String tail() {
        try {
            String log = dispatching.log();
            return log.substring(Math.max(0, log.length() - 4_000));
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
