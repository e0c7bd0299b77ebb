package dev.triggeroutbox.jmx;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxApi;
import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItServer;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A JMX client, as JConsole is one, connected to the running server, reads the outbox's totals and this node's
 * dispatcher and pauses and resumes dispatching: the same switch and the same audit record as the admin API's, read
 * through the typed client. On WildFly it connects through the management port (remote+http, the local user's silent
 * authentication of this machine); on Payara Micro, which opens no JMX port of its own, as JConsole does to a local
 * process: through the JVM's attach mechanism, which starts its local management agent.
 */
@ExtendWith(ArquillianExtension.class)
class JmxIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private OutboxClient client;
    private OutboxApi admin;
    private JMXConnector jmx;
    private MBeanServerConnection server;

    @BeforeEach
    void connect() throws Exception {
        client = ItClients.client(base, ADMIN);
        admin = ItClients.restClient(base, ADMIN);
        jmx = JMXConnectorFactory.connect(new JMXServiceURL(ItServer.current() == ItServer.WILDFLY
                ? "service:jmx:remote+http://127.0.0.1:" + Integer.getInteger("it.management.port", 9990)
                : localAgentOf(payaraMicro())));
        server = jmx.getMBeanServerConnection();
    }

    /** The Payara Micro process the tests deploy to (the newest, should an earlier one still be exiting). */
    private static long payaraMicro() {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine()
                        .map(c -> c.contains("payara-micro") && c.contains("--postbootcommandfile")).orElse(false))
                .max(java.util.Comparator.comparing(p -> p.info().startInstant().orElse(java.time.Instant.MIN)))
                .orElseThrow(() -> new IllegalStateException("no Payara Micro process found"))
                .pid();
    }

    /** The address of the local JMX agent of process {@code pid}, started if it runs none (what JConsole does). */
    private static String localAgentOf(long pid) throws Exception {
        com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
        try {
            return vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
    }

    @AfterEach
    void close() throws Exception {
        try {
            client.resume();
        } finally {
            jmx.close();
            ItClients.close(admin);
            client.close();
        }
    }

    @Test
    void aJmxConsoleSeesTheTotalsAndTheNodeAndPausesDispatching() throws Exception {
        OutboxMXBean outbox = JMX.newMXBeanProxy(server, new ObjectName("dev.triggeroutbox:type=Outbox"),
                OutboxMXBean.class);
        DispatcherMXBean node = JMX.newMXBeanProxy(server, new ObjectName("dev.triggeroutbox:type=Dispatcher"),
                DispatcherMXBean.class);

        // the totals are the console's, from the same snapshot
        JsonObject stats = client.stats();
        Eventually.until(WAIT, () -> outbox.getCountsAsOf().equals(client.stats().getString("asOf"))
                && outbox.getDead() == client.stats().getJsonNumber("dead").longValue(),
                () -> outbox.getCountsAsOf() + " dead " + outbox.getDead() + " vs " + stats);
        assertTrue(OffsetDateTime.parse(outbox.getCountsAsOf()).isAfter(OffsetDateTime.now().minusMinutes(1)),
                outbox.getCountsAsOf());
        assertTrue(outbox.getPending() >= 0 && outbox.getScheduled() >= 0 && outbox.getOldestDueAgeSeconds() >= 0);

        assertEquals("it-node-1", node.getNodeName());
        assertTrue(node.isEnabled());
        Eventually.until(WAIT, () -> node.getMillisSinceLastTick() >= 0 && node.getMillisSinceLastTick() < 5_000,
                () -> "last tick " + node.getMillisSinceLastTick() + " ms ago");
        assertTrue(node.getInFlight() >= 0 && node.getClaimsPerSecond() >= 0 && node.getDeliveriesPerSecond() >= 0);
        assertTrue(node.getDeliveredTotal() <= node.getClaimedTotal(), "delivered " + node.getDeliveredTotal()
                + " of " + node.getClaimedTotal() + " claimed");

        // pause through JMX: the switch the admin API shows, audited as a pause by "jmx"
        outbox.pause();
        assertTrue(outbox.isPaused());
        assertTrue(client.stats().getBoolean("paused"));
        JsonObject audited = admin.audit("dispatcher.pause", null, null, null).getJsonArray("items").getJsonObject(0);
        assertEquals("jmx", audited.getString("principal"), audited.toString());
        outbox.resume();
        assertEquals(false, outbox.isPaused());
        assertEquals(false, client.stats().getBoolean("paused"));

        // an app held and released through JMX: the hold the admin API shows, audited as by "jmx"
        String app = java.util.UUID.randomUUID().toString();
        assertTrue(outbox.holdApp(app));
        assertEquals(false, outbox.holdApp(app), "a second hold changes nothing");
        assertTrue(java.util.List.of(outbox.getHeldApps()).contains(app));
        assertTrue(admin.holds().getJsonArray("apps").stream()
                .anyMatch(h -> h.asJsonObject().getString("appId").equals(app)));
        assertTrue(outbox.getHeld() >= 0);
        assertEquals(0, outbox.releaseApp(app), "nothing was waiting");
        assertEquals(java.util.List.of("app.release", "app.hold"), admin.audit(null, app, null, null)
                .getJsonArray("items").stream()
                .map(e -> e.asJsonObject().getString("principal") + ":" + e.asJsonObject().getString("action"))
                .map(a -> a.replace("jmx:", "")).toList());
    }
}
