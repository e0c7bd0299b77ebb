package dev.triggeroutbox.dispatch;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One app's slow-but-up webhook receiver, or its flood, does not slow another app (black-box, real receivers on
 * loopback). Slow: app A has more rows waiting for its slow receiver than the node has delivery permits, and app
 * B's rows still reach their receiver at once, because A holds only its share of the node. Flood: A has a backlog
 * for a receiver that answers at once, all due before B's rows, and B's rows still arrive while most of A's
 * backlog waits, because each claim behind a full window takes every other app's earliest rows.
 */
@ExtendWith(ArquillianExtension.class)
class SlowAppIT {

    /** How long A's receiver takes to answer each request (below the tests' webhook timeout of 800 ms). */
    private static final long SLOW_MILLIS = 700;
    /** More than the node's 1,000 delivery permits: without shares, A alone would hold all of them. */
    private static final int A_ROWS = 1_100;
    private static final int B_ROWS = 20;
    /** Far more than a claim's window and the node's delivery permits: many seconds of draining here. */
    private static final int FLOOD_ROWS = 20_000;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private Api api;
    /** Each app its own receiver (its own origin, so A's timeouts never open a circuit B shares). */
    private Receiver receiverOfA;
    private Receiver receiverOfB;

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        receiverOfA = new Receiver();
        receiverOfB = new Receiver();
    }

    @AfterEach
    void stop() {
        receiverOfA.close();
        receiverOfB.close();
        api.close();
    }

    private String webhook(UUID app, Receiver receiver, String path) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"kv","target":{"type":"webhook","url":"%s"}}""".formatted(receiver.url(path)));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    /** {@code n} due rows of {@code app} for {@code trigger}, in one statement (found by the next claim, all at once). */
    private static void rows(UUID app, String trigger, int n) {
        ItDatabase.update("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload)
                SELECT gen_random_uuid(), ?, 'kv', ?, jsonb_build_object('n', n) FROM generate_series(1, ?) n""",
                app, UUID.fromString(trigger), n);
    }

    /** B's rows at its receiver: the slowest from {@code enqueued}, and the latest arrival. */
    private record ArrivalsOfB(long slowestMillis, Instant last) {
    }

    private ArrivalsOfB arrivalsOfB(Instant enqueued) {
        Eventually.until(Duration.ofSeconds(60), () -> receiverOfB.rowsAt("/b").size() == B_ROWS,
                () -> receiverOfB.rowsAt("/b").size() + " of B's rows arrived");
        long slowest = 0;
        Instant latest = Instant.MIN;
        for (Receiver.Request got : receiverOfB.rowsAt("/b")) {
            slowest = Math.max(slowest, Duration.between(enqueued, got.at()).toMillis());
            latest = got.at().isAfter(latest) ? got.at() : latest;
        }
        return new ArrivalsOfB(slowest, latest);
    }

    private long rowsOfAReceivedBefore(Instant t) {
        return receiverOfA.at("/a").stream().filter(r -> r.at().isBefore(t)).count();
    }

    /** Waits until each of A's {@code rows} is finished; those not delivered are dead letters. How many were delivered. */
    private static long everyRowOfAEnded(UUID a, int rows, Duration within) {
        Eventually.until(within,
                () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", a) == rows,
                () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", a)
                        + " of A's rows finished");
        long delivered = ItDatabase
                .count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND outcome = 'delivered'", a);
        assertEquals(rows - delivered, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", a));
        return delivered;
    }

    @Test
    void anotherAppsRowsArriveAtOnceWhileOneAppsReceiverIsSlow() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        receiverOfA.script("/a", n -> new Receiver.Answer(204, Map.of(), "", SLOW_MILLIS));
        receiverOfB.script("/b", n -> Receiver.Answer.of(204));
        String slow = webhook(a, receiverOfA, "/a");
        String fast = webhook(b, receiverOfB, "/b");

        rows(a, slow, A_ROWS);
        Eventually.until(Duration.ofSeconds(10), () -> receiverOfA.at("/a").size() >= 200,
                () -> receiverOfA.at("/a").size() + " of A's requests arrived");

        // B's rows found by the next poll, all due at once, while every request of A is held
        Instant enqueued = Instant.now();
        rows(b, fast, B_ROWS);
        ArrivalsOfB arrived = arrivalsOfB(enqueued);
        long aBefore = rowsOfAReceivedBefore(arrived.last());
        System.out.printf(
                "slow app: B's slowest row took %d ms from its commit to its receiver; A's receiver answers after "
                        + "%d ms and had got %d of A's %d rows by B's last%n",
                arrived.slowestMillis(), SLOW_MILLIS, aBefore, A_ROWS);
        // A's backlog still waits (most of its rows unsent) while each of B's rows arrives sooner than one of A's answers:
        // none of B's rows waited for a permit or a connection A held
        assertTrue(aBefore < A_ROWS / 2,
                aBefore + " of A's rows had reached its receiver by B's last: A's backlog was gone");
        assertTrue(arrived.slowestMillis() < SLOW_MILLIS, "B's slowest row arrived " + arrived.slowestMillis()
                + " ms after its commit: it waited behind A's slow receiver (" + SLOW_MILLIS + " ms per answer)");

        // nothing of A is lost: every row ends delivered, or dead-lettered where a slow answer passed the
        // webhook timeout three times on this busy machine; each delivered one reached A's receiver
        long delivered = everyRowOfAEnded(a, A_ROWS, Duration.ofSeconds(60));
        List<Receiver.Request> rowsOfA = receiverOfA.rowsAt("/a");
        assertTrue(rowsOfA.size() >= delivered,
                rowsOfA.size() + " rows of A reached its receiver, " + delivered + " delivered");
    }

    @Test
    void anotherAppsRowsArriveWhileOneAppsFloodDrains() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        receiverOfA.script("/a", n -> Receiver.Answer.of(204));
        receiverOfB.script("/b", n -> Receiver.Answer.of(204));
        String flood = webhook(a, receiverOfA, "/a");
        String quiet = webhook(b, receiverOfB, "/b");

        rows(a, flood, FLOOD_ROWS);
        Eventually.until(Duration.ofSeconds(20), () -> receiverOfA.at("/a").size() >= 500,
                () -> receiverOfA.at("/a").size() + " of A's requests arrived");

        // B's rows, due after every row of A's backlog (before claims were fair behind a full window, B's last row
        // arrived 21.5 s after its commit, when 19,466 of A's 20,000 rows had)
        Instant enqueued = Instant.now();
        rows(b, quiet, B_ROWS);
        ArrivalsOfB arrived = arrivalsOfB(enqueued);
        long aBefore = rowsOfAReceivedBefore(arrived.last());
        System.out
                .printf("flood: B's slowest row took %d ms from its commit to its receiver; A's receiver had got %d of "
                        + "A's %d rows by B's last%n", arrived.slowestMillis(), aBefore, FLOOD_ROWS);
        assertTrue(aBefore < FLOOD_ROWS / 2,
                aBefore + " of A's " + FLOOD_ROWS + " rows had reached its receiver by B's "
                        + "last: B's rows waited behind A's backlog");

        // A's backlog drains all the same: every row ends delivered, or dead-lettered where its answers passed the
        // 800 ms webhook timeout three times on this busy machine (Payara Micro once: 5 of 20,000)
        long delivered = everyRowOfAEnded(a, FLOOD_ROWS, Duration.ofSeconds(120));
        assertTrue(delivered >= FLOOD_ROWS * 99 / 100,
                () -> delivered + " of A's " + FLOOD_ROWS + " rows delivered; why the "
                        + "others were not: " + ItDatabase.text("""
                        SELECT string_agg(n || ' × ' || last_error, '; ') FROM (
                            SELECT count(*) AS n, last_error FROM dead_letters WHERE app_id = ?
                            GROUP BY last_error ORDER BY count(*) DESC LIMIT 3) e""", a));
    }
}
