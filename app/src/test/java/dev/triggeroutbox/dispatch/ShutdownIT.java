package dev.triggeroutbox.dispatch;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import dev.triggeroutbox.testkit.WildFlyOnly;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Undeploying the WAR while it delivers (black-box; the test deploys and undeploys it itself): the node
 * stops claiming, finishes each delivery in flight with its result, gives back the rows it claimed but never
 * started with their attempt, and leaves no row claimed behind it, so nothing waits for a lease and nothing
 * is delivered twice. A row left claimed would still be claimed when undeploy returns (the leases here are
 * 3 and 8 s).
 */
@ExtendWith(ArquillianExtension.class)
@WildFlyOnly("deploys and undeploys mid-test through Arquillian's Deployer; Payara Micro boots with its one deployment")
class ShutdownIT {

    private static final String WAR = "outbox";
    private static final String SLOW_WEBHOOKS_WAR = "outbox-slow-webhooks";
    /** Below the webhook timeout of {@link #slowWebhooks()}: every request succeeds, slowly. */
    private static final long SLOW_MILLIS = 2_000;
    private static final int WEBHOOK_ROWS = 30;
    /** More than the 16 delivery threads one app may hold: the rest wait for a thread. */
    private static final int HANDLER_ROWS = 40;

    @Deployment(name = WAR, managed = false, testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    /**
     * The same WAR with room for a slow webhook: the IT server's 800 ms webhook timeout would end a request
     * before an undeploy on a busy machine reaches the dispatcher. A config source of a higher ordinal than
     * the server's system properties (400) sets longer timeouts, for this deployment only.
     */
    @Deployment(name = SLOW_WEBHOOKS_WAR, managed = false, testable = false)
    static WebArchive slowWebhooks() {
        return ShrinkWrap.create(WebArchive.class, "outbox-slow-webhooks.war").merge(Deployments.outbox())
                .addAsLibrary(ShrinkWrap.create(JavaArchive.class, "shutdown-it-config.jar")
                        .addAsManifestResource(new StringAsset("""
                        config_ordinal=500
                        outbox.webhook.timeout-ms=5000
                        outbox.delivery.timeout-ms=6000
                        outbox.dispatch.lease-ms=8000
                        """), "microprofile-config.properties"));
    }

    @ArquillianResource
    Deployer deployer;

    private Api api;
    private Receiver receiver;
    private String deployed;

    @BeforeEach
    void start() throws Exception {
        api = new Api(new URL("http://127.0.0.1:" + (8080 + Integer.getInteger("it.port.offset", 0)) + "/outbox/"));
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        api.close();
        if (deployed != null) {
            deployer.undeploy(deployed);
        }
    }

    private void deploy(String name) {
        deployer.deploy(name);
        deployed = name;
    }

    private void undeployNow() {
        deployer.undeploy(deployed);
        deployed = null;
    }

    private String trigger(UUID app, String target) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"kv","target":%s}""".formatted(target));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private static void rows(UUID app, String trigger, int n) {
        ItDatabase.update("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload)
                SELECT gen_random_uuid(), ?, 'kv', ?, jsonb_build_object('n', n) FROM generate_series(1, ?) n""",
                app, UUID.fromString(trigger), n);
    }

    private static long claimed(UUID app) {
        return ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ? AND claim_token IS NOT NULL", app);
    }

    @Test
    void webhooksInFlightAreFinishedOnceByTheStoppingNode() throws Exception {
        deploy(SLOW_WEBHOOKS_WAR);
        UUID app = UUID.randomUUID();
        receiver.script("/slow", n -> new Receiver.Answer(204, Map.of(), "", SLOW_MILLIS));
        rows(app, trigger(app, "{\"type\":\"webhook\",\"url\":\"" + receiver.url("/slow") + "\"}"), WEBHOOK_ROWS);
        Eventually.until(Duration.ofSeconds(10), () -> receiver.at("/slow").size() == WEBHOOK_ROWS,
                () -> receiver.at("/slow").size() + " of " + WEBHOOK_ROWS + " requests arrived");

        undeployNow(); // while the receiver holds the requests

        assertEquals(0, claimed(app), "rows left claimed by the stopped node (they would wait for their lease)");
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app),
                () -> "rows left to deliver again: " + ItDatabase
                        .text("SELECT string_agg(DISTINCT last_error, ' | ') FROM outbox WHERE app_id = ?", app));
        assertEquals(WEBHOOK_ROWS, ItDatabase.count(
                "SELECT count(*) FROM delivery_history WHERE app_id = ? AND outcome = 'delivered' AND attempt_count = 1",
                app),
                "every request the receiver answered is finished as delivered, at its first attempt");
        assertEquals(WEBHOOK_ROWS, receiver.at("/slow").size(), "each row received once");
        String drained = lastDrainLine();
        System.out.println("shutdown: " + drained);
        assertTrue(drained.contains(WEBHOOK_ROWS + " row(s) in flight; finished " + WEBHOOK_ROWS + " delivered"),
                drained);
    }

    @Test
    void rowsWaitingForADeliveryThreadAreGivenBackWithTheirAttempt() throws Exception {
        deploy(WAR);
        UUID app = UUID.randomUUID();
        String gate = trigger(app, "{\"type\":\"handler\",\"name\":\"gate\"}");
        // one row first, so that the node's delivery threads are up when the others come
        UUID warmUp = UUID.randomUUID();
        rows(warmUp, trigger(warmUp, "{\"type\":\"handler\",\"name\":\"gate\"}"), 1);
        Eventually.until(Duration.ofSeconds(10),
                () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", warmUp) == 1,
                () -> "the first row was not delivered");
        // the gate handler holds each delivery 900 ms (nobody opens it here): 16 run, 24 wait for a thread
        rows(app, gate, HANDLER_ROWS);
        Eventually.until(Duration.ofSeconds(10), () -> claimed(app) == HANDLER_ROWS,
                () -> claimed(app) + " rows claimed");

        undeployNow();

        assertEquals(0, claimed(app), "rows left claimed by the stopped node (they would wait for their lease)");
        long delivered = ItDatabase.count(
                "SELECT count(*) FROM delivery_history WHERE app_id = ? AND outcome = 'delivered' AND attempt_count = 1",
                app);
        long givenBack = ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ? AND attempt_count = 0", app);
        assertTrue(delivered > 0, "the deliveries that were running are finished as delivered");
        assertTrue(givenBack > 0, "the rows that never got a thread are given back unstarted");
        assertEquals(HANDLER_ROWS, delivered + givenBack, delivered + " delivered and " + givenBack
                + " given back with their attempt; the rest ended otherwise (retried, dead) or were lost");
        System.out.println("shutdown: " + lastDrainLine());

        deploy(WAR);
        Eventually.until(Duration.ofSeconds(30), () -> ItDatabase.count(
                "SELECT count(*) FROM delivery_history WHERE app_id = ? AND outcome = 'delivered'",
                app) == HANDLER_ROWS,
                () -> ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app) + " of "
                        + HANDLER_ROWS
                        + " finished after the redeploy");
        assertEquals(HANDLER_ROWS, ItDatabase.count(
                "SELECT count(*) FROM delivery_history WHERE app_id = ? AND attempt_count = 1", app),
                "the rows given back were delivered at their first attempt: none was spent by the shutdown");
    }

    /** What the stopping node logged about its rows (WildFly's server.log of the IT server). */
    private static String lastDrainLine() throws IOException {
        Path log = Path.of(System.getProperty("jboss.home"), "standalone", "log", "server.log");
        if (!Files.exists(log)) {
            return "(no server.log)";
        }
        List<String> lines = Files.readAllLines(log).stream().filter(l -> l.contains("dispatcher stopped:")).toList();
        return lines.isEmpty() ? "(not logged)" : lines.get(lines.size() - 1);
    }
}
