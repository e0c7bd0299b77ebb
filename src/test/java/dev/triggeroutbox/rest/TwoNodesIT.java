package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import dev.triggeroutbox.support.SecondNode;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import dev.triggeroutbox.support.WildFlyOnly;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two nodes, one database: Arquillian's WildFly (it-node-1, dispatching) and a second WildFly
 * process (it-node-2) that takes requests and fires cron triggers but does not dispatch, so
 * everything it accepts is delivered by the other node.
 */
@WildFlyOnly("the second node is a WildFly process started from the build's installation")
@ExtendWith(ArquillianExtension.class)
class TwoNodesIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static SecondNode second;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private Api first;
    private Api other;
    private Receiver receiver;
    private final UUID app = UUID.randomUUID();

    @BeforeAll
    static void startSecondNode() throws Exception {
        second = SecondNode.start("-Doutbox.dispatch.enabled=false");
    }

    @AfterAll
    static void stopSecondNode() {
        if (second != null) {
            second.close();
        }
    }

    @BeforeEach
    void start() throws Exception {
        first = new Api(base);
        other = new Api(second.url());
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        first.close();
        other.close();
    }

    private String webhook(Api api, String kind, String path, String extra) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                {"sourceKind":"%s","target":{"type":"webhook","url":"%s"}%s}""".formatted(kind, receiver.url(path), extra));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    @Test
    void invokeOnOneNodeIsAnsweredWithTheReplyDeliveredByTheOther() {
        receiver.script("/answer", n -> new Receiver.Answer(200, Map.of("Content-Type", "application/json"), "{\"answer\":" + n + "}"));
        String trigger = webhook(other, "http", "/answer", "");
        for (int i = 1; i <= 3; i++) {
            Api.Reply r = other.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=10000",
                    "{\"payload\":{\"question\":" + i + "}}");
            assertEquals(200, r.status(), r.toString());
            assertEquals(i, r.object().getInt("answer"), "each caller gets its own reply");
        }
        assertEquals(3, receiver.rowsAt("/answer").size(), "one row per invoke");
        assertEquals(3, ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND finished_by = 'it-node-1'", app));
    }

    @Test
    void aLateReplyIsFetchedFromTheNodeThatWasAsked() {
        receiver.script("/slow", n -> new Receiver.Answer(200, Map.of(), "{\"late\":true}", 500));
        String trigger = webhook(other, "http", "/slow", "");
        Api.Reply r = other.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/invoke?timeoutMs=50", "{\"payload\":{}}");
        assertEquals(202, r.status(), r.toString());
        assertNotNull(r.location());
        String path = r.location().substring(r.location().indexOf("/api/v1/") + "/api/v1/".length());
        Eventually.until(WAIT, () -> other.get(ADMIN, path).status() == 200, () -> other.get(ADMIN, path).toString());
        assertTrue(other.get(ADMIN, path).object().getBoolean("late"));
        assertEquals(200, first.get(ADMIN, path).status(), "either node answers");
        assertEquals(1, receiver.rowsAt("/slow").size());
    }

    @Test
    void eachCronFireEnqueuesExactlyOneRowWhileBothNodesFire() {
        receiver.script("/tick", n -> Receiver.Answer.of(200));
        String trigger = webhook(first, "cron", "/tick", ",\"schedule\":\"* * * * * *\"");
        Eventually.until(WAIT, () -> receiver.at("/tick").size() >= 8, () -> receiver.at("/tick").size() + " fires");
        Api.Reply off = other.call(ADMIN, "PUT", "apps/" + app + "/triggers/" + trigger, """
                {"sourceKind":"cron","schedule":"* * * * * *","enabled":false,"target":{"type":"webhook","url":"%s"}}"""
                .formatted(receiver.url("/tick")));
        assertEquals(200, off.status(), off.toString());
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app) == 0, () -> "rows left");
        Set<Instant> fires = new HashSet<>();
        for (Receiver.Request tick : receiver.rowsAt("/tick")) {
            try (var reader = Json.createReader(new StringReader(tick.body()))) {
                JsonObject cron = reader.readObject().getJsonObject("cron");
                assertTrue(fires.add(Instant.parse(cron.getString("scheduledAt"))), "fired twice: " + cron);
            }
        }
        Instant earliest = fires.stream().min(Instant::compareTo).orElseThrow();
        Instant latest = fires.stream().max(Instant::compareTo).orElseThrow();
        assertEquals(Duration.between(earliest, latest).toSeconds() + 1, fires.size(), "a fire was missed: " + fires);
        assertEquals(fires.size(), ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app),
                "one row per fire");
    }
}
