package dev.triggeroutbox.dispatch;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItSession;
import jakarta.json.Json;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PostgreSQL stops while rows wait and callers keep calling: readiness goes down, writes fail
 * with 503 {@code unavailable} (the caller knows nothing was stored, and to try again), and when the database is back the node
 * recovers by itself and every acknowledged row is delivered.
 */
@ExtendWith(ArquillianExtension.class)
class DatabaseOutageIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    @Test
    void aDatabaseOutageLosesNothingAcknowledgedAndReadinessFollowsIt() throws Exception {
        UUID app = UUID.randomUUID();
        try (Api api = new Api(base); OutboxClient client = ItClients.client(base, ADMIN)) {
            UUID trigger = client.createTrigger(app, TriggerDefinition.handler("kv", "recorder"), Call.plain()).id();
            // acknowledged rows due while the database is down
            OffsetDateTime due = OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(2);
            List<UUID> acknowledged = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                acknowledged.add(client
                        .enqueue(new NewRow(app, "kv", trigger, Json.createObjectBuilder().add("n", i).build(), due)));
            }
            // by hand: the open health paths and the refused write's answer are the point
            assertEquals(200, api.get(null, "health/ready").status());

            ItSession.postgres().outage(() -> {
                Eventually.until(WAIT, () -> api.get(null, "health/ready").status() == 503, () -> "still ready");
                Api.Reply refused = api.post(ADMIN, "outbox", """
                        {"appId":"%s","sourceKind":"kv","triggerId":"%s","payload":{}}""".formatted(app, trigger));
                assertEquals(503, refused.status(), refused.toString());
                assertTrue(refused.body().contains("\"type\":\"urn:trigger-outbox:problem:unavailable\""),
                        refused.toString());
                assertTrue(refused.isProblem(), refused.toString());
                assertTrue(!refused.body().contains("PSQL") && !refused.body().contains("Exception"),
                        refused.toString());
            });

            Eventually.until(WAIT, () -> api.get(null, "health/ready").status() == 200, () -> "not ready again");
            for (UUID id : acknowledged) {
                Eventually.until(WAIT, () -> "delivered".equals(ItClients.status(client, id)),
                        () -> ItClients.status(client, id));
            }
            assertEquals(200, api.get(null, "health/live").status());
        }
    }
}
