package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.ItUsers.APP_A;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_A;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.JsonObject;
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
 * admins; another app's producer finds nothing.
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

    private Api api;
    private Receiver receiver;

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        receiver = new Receiver();
    }

    /** The triggers a test made in the shared app A, deleted after it: other tests publish to app A's kinds. */
    private final List<String> triggers = new ArrayList<>();

    @AfterEach
    void stop() {
        try {
            for (String t : triggers) {
                api.call(ADMIN, "DELETE", "apps/" + APP_A + "/triggers/" + t, null);
            }
        } finally {
            receiver.close();
            api.close();
        }
    }

    private String trigger(String path, int maxAttempts) {
        Api.Reply r = api.post(ADMIN, "apps/" + APP_A + "/triggers", """
                {"sourceKind":"files","target":{"type":"webhook","url":"%s"},"maxAttempts":%d}""".formatted(receiver.url(path), maxAttempts));
        assertEquals(201, r.status(), r.toString());
        triggers.add(r.object().getString("id"));
        return r.object().getString("id");
    }

    private String enqueue(String trigger) {
        Api.Reply r = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"files","triggerId":"%s","payload":{"n":1}}""".formatted(APP_A, trigger));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private String status(String id) {
        return api.get(ADMIN, "outbox/" + id).object().getString("status");
    }

    private List<JsonObject> attempts(String user, String id) {
        Api.Reply r = api.get(user, "outbox/" + id + "/attempts");
        assertEquals(200, r.status(), r.toString());
        return r.object().getJsonArray("items").getValuesAs(JsonObject.class);
    }

    @Test
    void everyAttemptIsLoggedWithItsStatusAndAnswer() {
        receiver.script("/flaky", n -> n == 1 ? new Receiver.Answer(503, Map.of(), "busy, try later")
                : n == 2 ? new Receiver.Answer(502, Map.of(), "") : Receiver.Answer.of(204));
        String id = enqueue(trigger("/flaky", 5));
        Eventually.until(WAIT, () -> status(id).equals("delivered"), () -> status(id));

        List<JsonObject> log = attempts(ADMIN, id);
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
                assertFalse(OffsetDateTime.parse(a.getString("startedAt")).isBefore(OffsetDateTime.parse(log.get(i - 1).getString("startedAt"))),
                        "in the order they ran: " + log);
            }
        }
        List<JsonObject> producers = attempts(PRODUCER_A, id);
        assertEquals(3, producers.size());
        assertTrue(producers.stream().allMatch(a -> a.isNull("node")), "a producer sees no node: " + producers);

        Api.Reply other = api.get(PRODUCER_B, "outbox/" + id + "/attempts");
        assertEquals(404, other.status(), "another app's producer: " + other);
        assertTrue(other.isProblem(), other.toString());
        assertEquals(404, api.get(ADMIN, "outbox/" + UUID.randomUUID() + "/attempts").status());
        assertEquals(404, api.get(ADMIN, "outbox/not-a-row/attempts").status());
    }

    @Test
    void aRefusalEndsTheLogWithItsDeadAttempt() {
        receiver.script("/refusing", n -> new Receiver.Answer(422, Map.of(), "{\"error\":\"unknown customer\"}"));
        String id = enqueue(trigger("/refusing", 5));
        Eventually.until(WAIT, () -> status(id).equals("dead"), () -> status(id));
        List<JsonObject> log = attempts(ADMIN, id);
        assertEquals(1, log.size(), log.toString());
        assertEquals("dead", log.get(0).getString("outcome"));
        assertEquals(422, log.get(0).getInt("httpStatus"));
        assertEquals("{\"error\":\"unknown customer\"}", log.get(0).getString("answer"));
        Api.Reply later = api.post(PRODUCER_A, "outbox", """
                {"appId":"%s","sourceKind":"files","triggerId":"%s","payload":{},"deliverAt":"%s"}"""
                .formatted(APP_A, trigger("/later", 1), OffsetDateTime.now().plusHours(1)));
        assertEquals(201, later.status(), later.toString());
        String scheduled = later.object().getString("id");
        assertTrue(attempts(ADMIN, scheduled).isEmpty(), "a row not yet tried has no attempts");
        assertEquals(200, api.post(ADMIN, "outbox/" + scheduled + "/cancel", null).status());
    }
}
