package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
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
 * One app's slow-but-up webhook receiver does not slow another app (black-box, real receivers on
 * loopback): app A has more rows waiting for its slow receiver than the node has delivery permits, and
 * app B's rows still reach their receiver at once, because A holds only its share of the node.
 */
@ExtendWith(ArquillianExtension.class)
class SlowAppIT {

    /** How long A's receiver takes to answer each request (below the tests' webhook timeout of 800 ms). */
    private static final long SLOW_MILLIS = 700;
    /** More than the node's 1,000 delivery permits: without shares, A alone would hold all of them. */
    private static final int A_ROWS = 1_100;
    private static final int B_ROWS = 20;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private Api api;
    /** Each app its own receiver (its own origin, so A's timeouts never open a circuit B shares). */
    private Receiver slowReceiver;
    private Receiver fastReceiver;

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        slowReceiver = new Receiver();
        fastReceiver = new Receiver();
    }

    @AfterEach
    void stop() {
        slowReceiver.close();
        fastReceiver.close();
        api.close();
    }

    private String webhook(UUID app, Receiver receiver, String path) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"kv","target":{"type":"webhook","url":"%s"}}""".formatted(receiver.url(path)));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    @Test
    void anotherAppsRowsArriveAtOnceWhileOneAppsReceiverIsSlow() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        slowReceiver.script("/slow", n -> new Receiver.Answer(204, Map.of(), "", SLOW_MILLIS));
        fastReceiver.script("/fast", n -> Receiver.Answer.of(204));
        String slow = webhook(a, slowReceiver, "/slow");
        String fast = webhook(b, fastReceiver, "/fast");

        ItDatabase.update("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload)
                SELECT gen_random_uuid(), ?, 'kv', ?, jsonb_build_object('n', n) FROM generate_series(1, ?) n""",
                a, UUID.fromString(slow), A_ROWS);
        Eventually.until(Duration.ofSeconds(10), () -> slowReceiver.at("/slow").size() >= 200,
                () -> slowReceiver.at("/slow").size() + " of A's requests arrived");

        // B's rows in one statement, found by the next poll: all due at once, while every request of A is held
        Instant enqueued = Instant.now();
        ItDatabase.update("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload)
                SELECT gen_random_uuid(), ?, 'kv', ?, jsonb_build_object('n', n) FROM generate_series(1, ?) n""",
                b, UUID.fromString(fast), B_ROWS);
        Eventually.until(Duration.ofSeconds(20), () -> fastReceiver.rowsAt("/fast").size() == B_ROWS,
                () -> fastReceiver.rowsAt("/fast").size() + " of B's rows arrived");
        long slowest = 0;
        Instant latest = Instant.MIN;
        for (Receiver.Request got : fastReceiver.rowsAt("/fast")) {
            slowest = Math.max(slowest, Duration.between(enqueued, got.at()).toMillis());
            latest = got.at().isAfter(latest) ? got.at() : latest;
        }
        Instant lastOfB = latest;
        long aBefore = slowReceiver.at("/slow").stream().filter(r -> r.at().isBefore(lastOfB)).count();
        System.out.printf("slow app: B's slowest row took %d ms from its commit to its receiver; A's receiver answers after "
                + "%d ms and had got %d of A's %d rows by B's last%n", slowest, SLOW_MILLIS, aBefore, A_ROWS);
        // A's backlog still waits (most of its rows unsent) while each of B's rows arrives sooner than one of A's answers:
        // none of B's rows waited for a permit or a connection A held
        assertTrue(aBefore < A_ROWS / 2, aBefore + " of A's rows had reached its receiver by B's last: A's backlog was gone");
        assertTrue(slowest < SLOW_MILLIS, "B's slowest row arrived " + slowest + " ms after its commit: it waited behind A's "
                + "slow receiver (" + SLOW_MILLIS + " ms per answer)");

        // nothing of A is lost: every row ends delivered, or dead-lettered where a slow answer passed the
        // webhook timeout three times on this busy machine; each delivered one reached A's receiver
        Eventually.until(Duration.ofSeconds(60),
                () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", a) == A_ROWS,
                () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", a) + " of A's rows finished");
        long delivered = ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND outcome = 'delivered'", a);
        assertEquals(A_ROWS - delivered, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", a));
        List<Receiver.Request> rowsOfA = slowReceiver.rowsAt("/slow");
        assertTrue(rowsOfA.size() >= delivered, rowsOfA.size() + " rows of A reached its receiver, " + delivered + " delivered");
    }
}
