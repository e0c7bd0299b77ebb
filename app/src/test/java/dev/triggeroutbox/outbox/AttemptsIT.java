package dev.triggeroutbox.outbox;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.PASSWORD;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.client.ProblemException;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Receiver;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
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
 * The delivery log: {@code GET /outbox/{id}/attempts} has one entry per attempt that ended, with its outcome, the
 * status and the start of the answer a real webhook receiver on loopback gave, the error, and the node only for
 * admins; another app's producer finds nothing. Called through the typed client, as each caller would.
 */
@ExtendWith(ArquillianExtension.class)
class AttemptsIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private OutboxClient admin;
    private OutboxClient producer;
    private OutboxClient otherProducer;
    private Receiver receiver;

    @BeforeEach
    void start() throws Exception {
        URI api = URI.create(base.toString()).resolve("api/v1/");
        admin = OutboxClient.connect(api, ADMIN, PASSWORD);
        producer = OutboxClient.connect(api, PRODUCER_A, PASSWORD);
        otherProducer = OutboxClient.connect(api, PRODUCER_B, PASSWORD);
        receiver = new Receiver();
    }

    /** The triggers a test made in the shared app A, deleted after it: other tests publish to app A's kinds. */
    private final List<UUID> triggers = new ArrayList<>();

    @AfterEach
    void stop() {
        try {
            triggers.forEach(t -> admin.deleteTrigger(APP_A, t));
        } finally {
            receiver.close();
            admin.close();
            producer.close();
            otherProducer.close();
        }
    }

    private UUID trigger(String path, int maxAttempts) {
        UUID id = admin.createTrigger(APP_A, TriggerDefinition.webhook("files", URI.create(receiver.url(path)))
                .maxAttempts(maxAttempts), Call.plain()).id();
        triggers.add(id);
        return id;
    }

    private UUID enqueue(UUID trigger) {
        return producer.enqueue(NewRow.of(APP_A, "files", trigger, Json.createObjectBuilder().add("n", 1).build()));
    }

    private String status(UUID id) {
        return admin.status(id).status();
    }

    @Test
    void everyAttemptIsLoggedWithItsStatusAndAnswer() {
        receiver.script("/flaky", n -> n == 1
                ? new Receiver.Answer(503, Map.of(), "busy, try later")
                : n == 2 ? new Receiver.Answer(502, Map.of(), "") : Receiver.Answer.of(204));
        UUID id = enqueue(trigger("/flaky", 5));
        Eventually.until(WAIT, () -> status(id).equals("delivered"), () -> status(id));

        List<JsonObject> log = admin.attempts(id);
        assertEquals(List.of(1, 2, 3), log.stream().map(a -> a.getInt("attempt")).toList(), log.toString());
        assertEquals(List.of("failed", "failed", "delivered"), log.stream().map(a -> a.getString("outcome")).toList());
        assertEquals(List.of(503, 502, 204), log.stream().map(a -> a.getInt("httpStatus")).toList());
        assertEquals("busy, try later", log.get(0).getString("answer"));
        assertTrue(log.get(0).getString("error").contains("503"), log.get(0).toString());
        assertTrue(log.get(2).isNull("error") && log.get(2).isNull("answer"), log.get(2).toString());
        for (int i = 0; i < 3; i++) {
            JsonObject a = log.get(i);
            assertEquals("it-node-1", a.getString("node"), "an admin sees the node: " + a);
            assertTrue(a.getJsonNumber("durationMs").longValue() >= 0, a.toString());
            if (i > 0) {
                assertFalse(
                        OffsetDateTime.parse(a.getString("startedAt"))
                                .isBefore(OffsetDateTime.parse(log.get(i - 1).getString("startedAt"))),
                        "in the order they ran: " + log);
            }
        }
        List<JsonObject> producers = producer.attempts(id);
        assertEquals(3, producers.size());
        assertTrue(producers.stream().allMatch(a -> a.isNull("node")), "a producer sees no node: " + producers);

        ProblemException other = assertThrows(ProblemException.class, () -> otherProducer.attempts(id));
        assertEquals(404, other.status(), "another app's producer: " + other.getMessage());
        assertEquals(404, assertThrows(ProblemException.class, () -> admin.attempts(UUID.randomUUID())).status());
    }

    @Test
    void aRefusalEndsTheLogWithItsDeadAttempt() {
        receiver.script("/refusing", n -> new Receiver.Answer(422, Map.of(), "{\"error\":\"unknown customer\"}"));
        UUID id = enqueue(trigger("/refusing", 5));
        Eventually.until(WAIT, () -> status(id).equals("dead"), () -> status(id));
        List<JsonObject> log = admin.attempts(id);
        assertEquals(1, log.size(), log.toString());
        assertEquals("dead", log.get(0).getString("outcome"));
        assertEquals(422, log.get(0).getInt("httpStatus"));
        assertEquals("{\"error\":\"unknown customer\"}", log.get(0).getString("answer"));
        UUID scheduled = producer
                .enqueue(new NewRow(APP_A, "files", trigger("/later", 1), Json.createObjectBuilder().build(),
                        OffsetDateTime.now().plusHours(1)));
        assertTrue(admin.attempts(scheduled).isEmpty(), "a row not yet tried has no attempts");
        assertEquals("cancelled", admin.cancel(scheduled).status());
    }
}
