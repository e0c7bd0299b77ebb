package dev.triggeroutbox.dispatch;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import dev.triggeroutbox.testkit.SecondNode;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import dev.triggeroutbox.testkit.WildFlyOnly;
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
 * everything it accepts is delivered by the other node. A typed client of each node makes the calls.
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

    private OutboxClient first;
    private OutboxClient other;
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
        first = ItClients.client(base, ADMIN);
        other = ItClients.client(second.url(), ADMIN);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        first.close();
        other.close();
    }

    private TriggerDefinition webhook(String kind, String path) {
        return TriggerDefinition.webhook(kind, URI.create(receiver.url(path)));
    }

    @Test
    void invokeOnOneNodeIsAnsweredWithTheReplyDeliveredByTheOther() {
        receiver.script("/answer",
                n -> new Receiver.Answer(200, Map.of("Content-Type", "application/json"), "{\"answer\":" + n + "}"));
        UUID trigger = other.createTrigger(app, webhook("http", "/answer"), Call.plain()).id();
        for (int i = 1; i <= 3; i++) {
            OutboxClient.Invoked r = other.invoke(app, trigger, Json.createObjectBuilder().add("question", i).build(),
                    Duration.ofSeconds(10), Call.plain());
            assertEquals(200, r.status(), r.toString());
            assertEquals(i, json(r.body()).getInt("answer"), "each caller gets its own reply");
        }
        assertEquals(3, receiver.rowsAt("/answer").size(), "one row per invoke");
        assertEquals(3, ItDatabase
                .count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND finished_by = 'it-node-1'", app));
    }

    @Test
    void aLateReplyIsFetchedFromTheNodeThatWasAsked() {
        receiver.script("/slow", n -> new Receiver.Answer(200, Map.of(), "{\"late\":true}", 500));
        UUID trigger = other.createTrigger(app, webhook("http", "/slow"), Call.plain()).id();
        OutboxClient.Invoked r = other.invoke(app, trigger, JsonValue.EMPTY_JSON_OBJECT, Duration.ofMillis(50),
                Call.plain());
        assertEquals(202, r.status(), r.toString());
        assertNotNull(r.later());
        Eventually.until(WAIT, () -> other.reply(r.later()).answered(), () -> other.reply(r.later()).toString());
        assertTrue(json(other.reply(r.later()).body()).getBoolean("late"));
        assertEquals(200, first.reply(r.later()).status(), "either node answers");
        assertEquals(1, receiver.rowsAt("/slow").size());
    }

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void eachCronFireEnqueuesExactlyOneRowWhileBothNodesFire() {
        receiver.script("/tick", n -> Receiver.Answer.of(200));
        TriggerDefinition everySecond = webhook("cron", "/tick").schedule("* * * * * *", null);
        UUID trigger = first.createTrigger(app, everySecond, Call.plain()).id();
        Eventually.until(WAIT, () -> receiver.at("/tick").size() >= 8, () -> receiver.at("/tick").size() + " fires");
        other.replaceTrigger(app, trigger, everySecond.enabled(false));
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app) == 0,
                () -> "rows left");
        Set<Instant> fires = new HashSet<>();
        for (Receiver.Request tick : receiver.rowsAt("/tick")) {
            JsonObject cron = json(tick.body()).getJsonObject("cron");
            assertTrue(fires.add(Instant.parse(cron.getString("scheduledAt"))), "fired twice: " + cron);
        }
        Instant earliest = fires.stream().min(Instant::compareTo).orElseThrow();
        Instant latest = fires.stream().max(Instant::compareTo).orElseThrow();
        assertEquals(Duration.between(earliest, latest).toSeconds() + 1, fires.size(), "a fire was missed: " + fires);
        assertEquals(fires.size(), ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app),
                "one row per fire");
    }
}
