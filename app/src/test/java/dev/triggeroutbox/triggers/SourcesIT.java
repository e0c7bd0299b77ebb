package dev.triggeroutbox.triggers;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxApi;
import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.client.ProblemException;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * The event sources end to end through the REST API, each received by a real HTTP server: the
 * published kinds fan out to every matching trigger once, cron triggers fire on their schedule, and
 * a cascade can be followed as a tree. Calls go through the typed client (OutboxApi for the lineage).
 */
@ExtendWith(ArquillianExtension.class)
class SourcesIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private OutboxClient client;
    private OutboxApi adminApi;
    private Receiver receiver;
    /** Each test its own app, so fan-out meets only that test's triggers. */
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        client = ItClients.client(base, ADMIN);
        adminApi = ItClients.restClient(base, ADMIN);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        ItClients.close(adminApi);
        client.close();
        api.close();
    }

    private UUID trigger(TriggerDefinition definition) {
        return client.createTrigger(app, definition, Call.plain()).id();
    }

    private UUID webhook(String kind, String path) {
        receiver.script(path, n -> Receiver.Answer.of(200));
        return trigger(TriggerDefinition.webhook(kind, URI.create(receiver.url(path))));
    }

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void publishedKindsFanOutToEveryMatchingTriggerExactlyOnce() {
        List<String> kinds = List.of("kv", "docs", "files", "pubsub", "http");
        for (String kind : kinds) {
            webhook(kind, "/" + kind + "/a");
            webhook(kind, "/" + kind + "/b");
        }
        webhook("email", "/email/never");
        List<UUID> rows = new ArrayList<>();
        for (String kind : kinds) {
            List<OutboxClient.Written> written = client.publish(app,
                    Event.of(kind, Json.createObjectBuilder().add("kind", kind).add("key", "k-1").build()));
            assertEquals(2, written.size(), kind + ": one row per matching trigger");
            written.forEach(w -> rows.add(w.id()));
        }
        Eventually.until(WAIT, () -> rows.stream().allMatch(id -> "delivered".equals(client.status(id).status())),
                () -> rows.size() + " rows, not all delivered");
        for (String kind : kinds) {
            for (String side : List.of("a", "b")) {
                String path = "/" + kind + "/" + side;
                List<Receiver.Request> got = receiver.rowsAt(path);
                assertEquals(1, got.size(), path + " received rows " + got.size());
                // every request that arrived was an attempt of that row (more than one only if one was retried)
                UUID row = UUID.fromString(got.get(0).header("webhook-id"));
                assertEquals(client.status(row).attemptCount(), receiver.at(path).size(), path);
                JsonObject payload = json(got.get(0).body());
                assertEquals(kind, payload.getString("kind"));
                assertEquals("k-1", payload.getString("key"));
            }
        }
        assertEquals(0, receiver.at("/email/never").size(), "a trigger of another kind hears nothing");
    }

    @Test
    void aCronTriggerFiresOnScheduleOneRowPerFire() {
        receiver.script("/cron", n -> Receiver.Answer.of(200));
        TriggerDefinition everySecond = TriggerDefinition.webhook("cron", URI.create(receiver.url("/cron")));
        UUID id = trigger(everySecond.schedule("* * * * * *", "Europe/Berlin"));
        Eventually.until(WAIT, () -> receiver.at("/cron").size() >= 4, () -> receiver.at("/cron").size() + " fires");
        JsonObject shown = client.trigger(app, id).json();
        assertEquals("* * * * * *", shown.getString("schedule"));
        assertEquals("Europe/Berlin", shown.getString("timezone"));
        assertEquals("fire_once", shown.getString("misfire"));
        assertTrue(Instant.parse(shown.getString("nextFireAt")).isAfter(Instant.parse(shown.getString("lastFiredAt"))),
                shown.toString());

        // disable it, then let what was enqueued arrive
        client.replaceTrigger(app, id, everySecond.schedule("* * * * * *", null).enabled(false));
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app) == 0,
                () -> "rows left");
        long rows = ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND source_kind = 'cron'",
                app);
        List<Receiver.Request> fires = receiver.rowsAt("/cron");
        assertEquals(rows, fires.size(), "each fire was one row, delivered once");
        Set<Instant> scheduled = new HashSet<>();
        for (Receiver.Request fire : fires) {
            JsonObject cron = json(fire.body()).getJsonObject("cron");
            assertEquals(id.toString(), cron.getString("triggerId"));
            assertEquals(0, cron.getInt("missedFires"));
            Instant at = Instant.parse(cron.getString("scheduledAt"));
            assertTrue(!Instant.parse(cron.getString("firedAt")).isBefore(at), "fired before its time: " + cron);
            assertTrue(scheduled.add(at), "one fire enqueued twice: " + at);
        }
        Instant first = scheduled.stream().min(Instant::compareTo).orElseThrow();
        Instant last = scheduled.stream().max(Instant::compareTo).orElseThrow();
        assertEquals(Duration.between(first, last).toSeconds() + 1, scheduled.size(),
                "no second was skipped: " + scheduled);
    }

    @Test
    void schedulesAreCheckedAndRefusedOnesChangeNothing() {
        TriggerDefinition cron = TriggerDefinition.webhook("cron", URI.create(receiver.url("/never")));
        record Case(TriggerDefinition definition, String field) {
        }
        for (Case c : List.of(
                new Case(cron.schedule(null, "UTC"), "schedule"),
                new Case(cron.schedule("61 * * * *", null), "schedule"),
                new Case(cron.schedule("0 0 30 2 *", null), "schedule"),
                new Case(cron.schedule("@daily", "Mars/Base"), "timezone"),
                new Case(cron.schedule("@daily", null).misfire("twice"), "misfire"),
                new Case(TriggerDefinition.webhook("kv", URI.create(receiver.url("/never"))).schedule("@daily", null),
                        "schedule"))) {
            ProblemException refused = assertRefused(400, "validation", () -> trigger(c.definition()));
            assertEquals(c.field(), refused.errors().get(0).field(), refused.errors().toString());
        }
        assertEquals(0, ItDatabase.everythingOf(app));
    }

    /** The cascade of {@code root} once it is one, else null. */
    private JsonObject lineage(UUID root) {
        try {
            return adminApi.lineage(root);
        } catch (ProblemException notYet) {
            return null;
        }
    }

    @Test
    void aCascadeCanBeFollowedAsATree() {
        UUID cascader = trigger(TriggerDefinition.handler("http", "cascader"));
        UUID root = client
                .enqueue(NewRow.of(app, "http", cascader, Json.createObjectBuilder().add("start", true).build()));
        // depths 0..8 deliver (the row at depth 8 fails when its invoke is refused, so it dies)
        Eventually.until(WAIT, () -> {
            JsonObject r = lineage(root);
            return r != null && r.getInt("rows") == 9
                    && r.getJsonObject("byStatus").getInt("dead", 0) == 1
                    && r.getJsonObject("byStatus").getInt("delivered", 0) == 8;
        }, () -> String.valueOf(lineage(root)));
        JsonObject lineage = adminApi.lineage(root);
        assertEquals(8, lineage.getInt("maxDepth"));
        assertEquals(false, lineage.getBoolean("truncated"));
        JsonArray tree = lineage.getJsonArray("tree");
        assertEquals(1, tree.size(), "one root");
        JsonObject node = tree.getJsonObject(0);
        assertEquals(root.toString(), node.getString("id"));
        for (int depth = 0; depth <= 8; depth++) {
            assertEquals(depth, node.getInt("triggerDepth"));
            assertEquals(root.toString(), node.getString("rootExecutionId"));
            assertEquals(depth == 8 ? "dead" : "delivered", node.getString("status"), node.toString());
            assertEquals(depth == 0 ? "http" : "invoke", node.getString("sourceKind"));
            JsonArray children = node.getJsonArray("children");
            if (depth == 8) {
                assertEquals(0, children.size());
                assertTrue(node.getString("lastError").contains("max-trigger-depth"), node.toString());
            } else {
                assertEquals(1, children.size(), "each row invoked one more");
                JsonObject child = children.getJsonObject(0);
                assertEquals(node.getString("id"), child.getString("parentId"));
                node = child;
            }
        }
        // by hand: a producer's call and an id that is no UUID
        Api.Reply asProducer = api.get(PRODUCER_A, "admin/lineage/" + root);
        assertEquals(403, asProducer.status(), asProducer.toString());
        assertEquals(404, assertThrows(ProblemException.class, () -> adminApi.lineage(UUID.randomUUID())).status());
        Api.Reply malformed = api.get(ADMIN, "admin/lineage/not-a-uuid");
        assertEquals(404, malformed.status(), malformed.toString());
        assertTrue(malformed.isProblem(), malformed.toString());
        assertTrue(node.get("parentId") != JsonValue.NULL);
    }
}
