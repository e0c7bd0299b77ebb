package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
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
 * a cascade can be followed as a tree.
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
    private Receiver receiver;
    /** Each test its own app, so fan-out meets only that test's triggers. */
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        api.close();
    }

    private String trigger(String json) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", json);
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private String webhook(String kind, String path) {
        receiver.script(path, n -> Receiver.Answer.of(200));
        return trigger("""
                {"sourceKind":"%s","target":{"type":"webhook","url":"%s"}}""".formatted(kind, receiver.url(path)));
    }

    private static JsonObject json(String text) {
        try (var reader = jakarta.json.Json.createReader(new StringReader(text))) {
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
        List<String> rows = new ArrayList<>();
        for (String kind : kinds) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/events", """
                    {"sourceKind":"%s","payload":{"kind":"%s","key":"k-1"}}""".formatted(kind, kind));
            assertEquals(202, r.status(), r.toString());
            JsonArray written = r.object().getJsonArray("rows");
            assertEquals(2, written.size(), kind + ": one row per matching trigger");
            written.getValuesAs(JsonObject.class).forEach(o -> rows.add(o.getString("id")));
        }
        Eventually.until(WAIT, () -> rows.stream().allMatch(id -> "delivered".equals(
                api.get(ADMIN, "outbox/" + id).object().getString("status"))), () -> rows.size() + " rows, not all delivered");
        for (String kind : kinds) {
            for (String side : List.of("a", "b")) {
                String path = "/" + kind + "/" + side;
                List<Receiver.Request> got = receiver.rowsAt(path);
                assertEquals(1, got.size(), path + " received rows " + got.size());
                // every request that arrived was an attempt of that row (more than one only if one was retried)
                String row = got.get(0).header("webhook-id");
                assertEquals(api.get(ADMIN, "outbox/" + row).object().getInt("attemptCount"), receiver.at(path).size(), path);
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
        String id = trigger("""
                {"sourceKind":"cron","schedule":"* * * * * *","timezone":"Europe/Berlin",
                 "target":{"type":"webhook","url":"%s"}}""".formatted(receiver.url("/cron")));
        Eventually.until(WAIT, () -> receiver.at("/cron").size() >= 4, () -> receiver.at("/cron").size() + " fires");
        JsonObject shown = api.get(ADMIN, "apps/" + app + "/triggers/" + id).object();
        assertEquals("* * * * * *", shown.getString("schedule"));
        assertEquals("Europe/Berlin", shown.getString("timezone"));
        assertEquals("fire_once", shown.getString("misfire"));
        assertTrue(Instant.parse(shown.getString("nextFireAt")).isAfter(Instant.parse(shown.getString("lastFiredAt"))), shown.toString());

        // disable it, then let what was enqueued arrive
        Api.Reply off = api.call(ADMIN, "PUT", "apps/" + app + "/triggers/" + id, """
                {"sourceKind":"cron","schedule":"* * * * * *","enabled":false,"target":{"type":"webhook","url":"%s"}}"""
                .formatted(receiver.url("/cron")));
        assertEquals(200, off.status(), off.toString());
        Eventually.until(WAIT, () -> ItDatabase.count("SELECT count(*) FROM outbox WHERE app_id = ?", app) == 0, () -> "rows left");
        long rows = ItDatabase.count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND source_kind = 'cron'", app);
        List<Receiver.Request> fires = receiver.rowsAt("/cron");
        assertEquals(rows, fires.size(), "each fire was one row, delivered once");
        Set<Instant> scheduled = new HashSet<>();
        for (Receiver.Request fire : fires) {
            JsonObject cron = json(fire.body()).getJsonObject("cron");
            assertEquals(id, cron.getString("triggerId"));
            assertEquals(0, cron.getInt("missedFires"));
            Instant at = Instant.parse(cron.getString("scheduledAt"));
            assertTrue(!Instant.parse(cron.getString("firedAt")).isBefore(at), "fired before its time: " + cron);
            assertTrue(scheduled.add(at), "one fire enqueued twice: " + at);
        }
        Instant first = scheduled.stream().min(Instant::compareTo).orElseThrow();
        Instant last = scheduled.stream().max(Instant::compareTo).orElseThrow();
        assertEquals(Duration.between(first, last).toSeconds() + 1, scheduled.size(), "no second was skipped: " + scheduled);
    }

    @Test
    void schedulesAreCheckedAndRefusedOnesChangeNothing() {
        String url = receiver.url("/never");
        record Case(String body, String field) {
        }
        for (Case c : List.of(
                new Case("{\"sourceKind\":\"cron\",\"timezone\":\"UTC\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url + "\"}}", "schedule"),
                new Case("{\"sourceKind\":\"cron\",\"schedule\":\"61 * * * *\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url + "\"}}", "schedule"),
                new Case("{\"sourceKind\":\"cron\",\"schedule\":\"0 0 30 2 *\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url + "\"}}", "schedule"),
                new Case("{\"sourceKind\":\"cron\",\"schedule\":\"@daily\",\"timezone\":\"Mars/Base\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url + "\"}}", "timezone"),
                new Case("{\"sourceKind\":\"cron\",\"schedule\":\"@daily\",\"misfire\":\"twice\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url + "\"}}", "misfire"),
                new Case("{\"sourceKind\":\"kv\",\"schedule\":\"@daily\",\"target\":{\"type\":\"webhook\",\"url\":\"" + url + "\"}}", "schedule"))) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", c.body());
            assertEquals(400, r.status(), c.body() + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
            JsonArray errors = r.object().getJsonArray("errors");
            assertEquals(c.field(), errors.getJsonObject(0).getString("field"), r.toString());
        }
        assertEquals(0, ItDatabase.everythingOf(app));
    }

    @Test
    void aCascadeCanBeFollowedAsATree() {
        String cascader = trigger("""
                {"sourceKind":"http","target":{"type":"handler","name":"cascader"}}""");
        Api.Reply enqueued = api.post(ADMIN, "outbox", """
                {"appId":"%s","sourceKind":"http","triggerId":"%s","payload":{"start":true}}""".formatted(app, cascader));
        assertEquals(201, enqueued.status(), enqueued.toString());
        String root = enqueued.object().getString("id");
        // depths 0..8 deliver (the row at depth 8 fails when its invoke is refused, so it dies)
        Eventually.until(WAIT, () -> {
            Api.Reply r = api.get(ADMIN, "admin/lineage/" + root);
            return r.status() == 200 && r.object().getInt("rows") == 9
                    && r.object().getJsonObject("byStatus").getInt("dead", 0) == 1
                    && r.object().getJsonObject("byStatus").getInt("delivered", 0) == 8;
        }, () -> api.get(ADMIN, "admin/lineage/" + root).toString());
        JsonObject lineage = api.get(ADMIN, "admin/lineage/" + root).object();
        assertEquals(8, lineage.getInt("maxDepth"));
        assertEquals(false, lineage.getBoolean("truncated"));
        JsonArray tree = lineage.getJsonArray("tree");
        assertEquals(1, tree.size(), "one root");
        JsonObject node = tree.getJsonObject(0);
        assertEquals(root, node.getString("id"));
        for (int depth = 0; depth <= 8; depth++) {
            assertEquals(depth, node.getInt("triggerDepth"));
            assertEquals(root, node.getString("rootExecutionId"));
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
        Api.Reply asProducer = api.get(PRODUCER_A, "admin/lineage/" + root);
        assertEquals(403, asProducer.status(), asProducer.toString());
        assertEquals(404, api.get(ADMIN, "admin/lineage/" + UUID.randomUUID()).status());
        Api.Reply malformed = api.get(ADMIN, "admin/lineage/not-a-uuid");
        assertEquals(404, malformed.status(), malformed.toString());
        assertTrue(malformed.isProblem(), malformed.toString());
        assertTrue(node.get("parentId") != JsonValue.NULL);
    }
}
