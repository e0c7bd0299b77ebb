package dev.triggeroutbox.console;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static dev.triggeroutbox.support.ItUsers.APP_A;
import static dev.triggeroutbox.support.ItUsers.NOBODY;
import static dev.triggeroutbox.support.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import dev.triggeroutbox.it.Eventually;
import dev.triggeroutbox.rest.Api;
import dev.triggeroutbox.rest.ItDatabase;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 * The admin API behind the console, as a client sees it: dead letters paged and filtered, one read
 * in full, bulk replay, the audit record, nodes, activity, breakdowns, triggers of every app and a
 * row's trail. Each test works in an app of its own (dead letters written straight into the
 * database with chosen errors), so other tests' rows never change what it counts.
 */
@ExtendWith(ArquillianExtension.class)
class AdminApiIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;

    @BeforeEach
    void client() {
        api = new Api(base);
    }

    @AfterEach
    void close() {
        api.close();
    }

    /** A dead letter of the app, dead {@code minutesAgo} minutes ago, with the given kind and error. */
    private static UUID deadLetter(UUID app, String kind, String error, int minutesAgo, UUID trigger) {
        UUID id = UUID.randomUUID();
        ItDatabase.update("""
                INSERT INTO dead_letters (id, app_id, source_kind, trigger_id, payload, trigger_depth, attempt_count,
                                          last_error, created_at, dead_at, origin_principal, dead_by)
                VALUES (?, ?, ?, ?, '{"n":1}', 0, 3, ?, now() - interval '2 hours', now() - make_interval(mins => ?),
                        'it-producer', 'it-node')""", id, app, kind, trigger, error, minutesAgo);
        return id;
    }

    private String trigger(UUID app, String kind, String handler) {
        Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"%s\",\"target\":{\"type\":\"handler\",\"name\":\"%s\"}}".formatted(kind, handler));
        assertEquals(201, r.status(), r.toString());
        return r.object().getString("id");
    }

    private List<String> ids(String path) {
        List<String> all = new ArrayList<>();
        String cursor = null;
        do {
            Api.Reply page = api.get(ADMIN, path + (cursor == null ? "" : "&cursor=" + cursor));
            assertEquals(200, page.status(), page.toString());
            page.object().getJsonArray("items").getValuesAs(JsonObject.class).forEach(d -> all.add(d.getString("id")));
            cursor = page.object().isNull("nextCursor") ? null : page.object().getString("nextCursor");
        } while (cursor != null);
        return all;
    }

    private static String q(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    @Test
    void deadLettersArePagedNewestFirstAndFilteredByAppKindAndErrorText() {
        UUID app = UUID.randomUUID();
        List<UUID> newestFirst = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            newestFirst.add(0, deadLetter(app, i % 2 == 0 ? "kv" : "docs", "HTTP 503 from target, try " + i, 30 - i, null));
        }
        UUID odd = deadLetter(app, "kv", "timeout 100% of the time_", 40, null);

        // pages of 3 walk every dead letter of the app once, newest first
        List<String> paged = ids("admin/dead-letters?appId=" + app + "&limit=3");
        List<String> expected = new ArrayList<>(newestFirst.stream().map(UUID::toString).toList());
        expected.add(odd.toString());
        assertEquals(expected, paged);
        Api.Reply first = api.get(ADMIN, "admin/dead-letters?appId=" + app + "&limit=3");
        assertEquals(3, first.object().getJsonArray("items").size());
        assertFalse(first.object().isNull("nextCursor"));

        assertEquals(5, ids("admin/dead-letters?appId=" + app + "&sourceKind=kv&limit=2").size());
        assertEquals(List.of(newestFirst.get(6 - 3).toString()), ids("admin/dead-letters?appId=" + app + "&error=" + q("try 3")));
        assertEquals(7, ids("admin/dead-letters?appId=" + app + "&error=" + q("http 503")).size(), "case-insensitive");
        // % and _ are taken literally, not as LIKE wildcards
        assertEquals(List.of(odd.toString()), ids("admin/dead-letters?appId=" + app + "&error=" + q("100% of the time_")));
        assertEquals(List.of(), ids("admin/dead-letters?appId=" + app + "&error=" + q("1_0")));
        assertEquals(List.of(), ids("admin/dead-letters?appId=" + app + "&sourceKind=http"));

        for (String bad : List.of("limit=0", "limit=501", "limit=x", "appId=nope", "sourceKind=smtp", "cursor=bm9wZQ",
                "error=" + "x".repeat(201), "error=")) {
            Api.Reply r = api.get(ADMIN, "admin/dead-letters?" + bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
        }
    }

    @Test
    void aPageOfLargeDeadLettersStopsAtItsByteBoundAndTheNextPageGoesOn() {
        UUID app = UUID.randomUUID();
        List<String> newestFirst = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            UUID id = deadLetter(app, "kv", "too big for the target", 100 - i, null);
            // stored as {"s": "x…x"}: 9 bytes around the text, 256 KiB in all
            ItDatabase.update("UPDATE dead_letters SET payload = jsonb_build_object('s', repeat('x', 262144 - 9)) WHERE id = ?", id);
            newestFirst.add(0, id.toString());
        }
        assertEquals(262144, ItDatabase.count("SELECT octet_length(payload::text) FROM dead_letters WHERE id = ?::uuid",
                newestFirst.get(0)));

        Api.Reply first = api.get(ADMIN, "admin/dead-letters?appId=" + app + "&limit=500");
        assertEquals(200, first.status(), first.toString());
        List<JsonObject> items = first.object().getJsonArray("items").getValuesAs(JsonObject.class);
        // 16 payloads of 256 KiB are the 4 MiB bound: the 17th would pass it, so the page ends before it
        assertEquals(16, items.size());
        assertEquals(262144 - 9, items.get(15).getJsonObject("payload").getString("s").length(), "payloads come whole");
        assertFalse(first.object().isNull("nextCursor"), "more to come");
        assertEquals(newestFirst, ids("admin/dead-letters?appId=" + app + "&limit=500"), "the next pages go on without loss");
    }

    @Test
    void oneDeadLetterInFull() {
        UUID app = UUID.randomUUID();
        UUID trigger = UUID.fromString(trigger(app, "files", "recorder"));
        UUID id = deadLetter(app, "files", "IllegalStateException: disk full", 1, trigger);
        Api.Reply r = api.get(ADMIN, "admin/dead-letters/" + id);
        assertEquals(200, r.status(), r.toString());
        JsonObject d = r.object();
        assertEquals(id.toString(), d.getString("id"));
        assertEquals(app.toString(), d.getString("appId"));
        assertEquals("files", d.getString("sourceKind"));
        assertEquals(3, d.getInt("attemptCount"));
        assertEquals("IllegalStateException: disk full", d.getString("lastError"));
        assertEquals(1, d.getJsonObject("payload").getInt("n"));
        assertEquals("it-producer", d.getString("originPrincipal"));
        assertEquals("it-node", d.getString("deadBy"));
        assertEquals(0, d.getInt("triggerDepth"));
        assertTrue(d.containsKey("rootExecutionId") && d.containsKey("replyTo") && d.containsKey("scriptId"), d.toString());
        assertEquals("handler", d.getJsonObject("trigger").getString("targetType"));
        assertEquals("recorder", d.getJsonObject("trigger").getString("target"));

        assertEquals(404, api.get(ADMIN, "admin/dead-letters/" + UUID.randomUUID()).status());
        assertEquals(404, api.get(ADMIN, "admin/dead-letters/not-a-uuid").status());
    }

    @Test
    void bulkReplayMovesWhatMatchesBoundedAndIsAudited() {
        UUID app = UUID.randomUUID();
        UUID trigger = UUID.fromString(trigger(app, "pubsub", "recorder"));
        Set<UUID> matching = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            matching.add(deadLetter(app, "pubsub", "connection refused #" + i, 10 + i, trigger));
        }
        UUID other = deadLetter(app, "pubsub", "410 Gone", 5, trigger);

        // an empty filter must say all: true
        Api.Reply refused = api.post(ADMIN, "admin/dead-letters/replay", "{}");
        assertEquals(400, refused.status(), refused.toString());
        assertTrue(refused.body().contains("all"), refused.body());
        for (String bad : List.of("{\"limit\":1001,\"appId\":\"" + app + "\"}", "{\"appId\":\"x\"}", "{\"colour\":1}",
                "{\"sourceKind\":\"smtp\"}", "[]")) {
            Api.Reply r = api.post(ADMIN, "admin/dead-letters/replay", bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
        }
        assertEquals(6, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app), "refused calls change nothing");

        String filter = "{\"appId\":\"%s\",\"sourceKind\":\"pubsub\",\"error\":\"CONNECTION REFUSED\",\"limit\":3}".formatted(app);
        Api.Reply r1 = api.post(ADMIN, "admin/dead-letters/replay", filter);
        assertEquals(200, r1.status(), r1.toString());
        assertEquals(3, r1.object().getInt("replayed"));
        assertTrue(r1.object().getBoolean("more"));
        Api.Reply r2 = api.post(ADMIN, "admin/dead-letters/replay", filter);
        assertEquals(2, r2.object().getInt("replayed"));
        assertFalse(r2.object().getBoolean("more"));
        assertEquals(0, api.post(ADMIN, "admin/dead-letters/replay", filter).object().getInt("replayed"));

        Set<UUID> replayed = new HashSet<>();
        for (Api.Reply r : List.of(r1, r2)) {
            r.object().getJsonArray("ids").getValuesAs(jakarta.json.JsonString.class).forEach(s -> replayed.add(UUID.fromString(s.getString())));
        }
        assertEquals(matching, replayed);
        for (UUID id : matching) {
            Eventually.until(WAIT, () -> "delivered".equals(status(id)), () -> status(id));
        }
        assertEquals("dead", status(other), "the dead letter that did not match stays");

        // the audit record: who, when, what, which rows, with which filter
        JsonObject entry = api.get(ADMIN, "admin/audit?action=dead-letters.bulk-replay&targetId=" + replayed.iterator().next())
                .object().getJsonArray("items").getJsonObject(0);
        assertEquals(ADMIN, entry.getString("principal"));
        assertEquals("dead-letters.bulk-replay", entry.getString("action"));
        assertEquals(app.toString(), entry.getJsonObject("filter").getString("appId"));
        assertEquals("CONNECTION REFUSED", entry.getJsonObject("filter").getString("error"));
        assertTrue(entry.getInt("affected") == 3 || entry.getInt("affected") == 2, entry.toString());
        assertEquals(entry.getInt("affected"), entry.getJsonArray("targetIds").size());
        assertNotNull(java.time.OffsetDateTime.parse(entry.getString("at")));
    }

    @Test
    void theDeadLettersOfOneLaneAreListedAndReplayedByTheirOrderingKey() {
        UUID app = UUID.randomUUID();
        UUID trigger = UUID.fromString(trigger(app, "pubsub", "recorder"));
        Set<UUID> lane = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            UUID id = deadLetter(app, "pubsub", "connection refused", 10 + i, trigger);
            ItDatabase.update("UPDATE dead_letters SET ordering_key = 'customer-7' WHERE id = ?", id);
            lane.add(id);
        }
        UUID other = deadLetter(app, "pubsub", "connection refused", 5, trigger);
        ItDatabase.update("UPDATE dead_letters SET ordering_key = 'customer-8' WHERE id = ?", other);
        UUID unkeyed = deadLetter(app, "pubsub", "connection refused", 6, trigger);

        assertEquals(lane.stream().map(UUID::toString).collect(java.util.stream.Collectors.toSet()),
                new HashSet<>(ids("admin/dead-letters?appId=" + app + "&orderingKey=customer-7&limit=2")));
        for (String bad : List.of("{\"orderingKey\":\"\"}", "{\"orderingKey\":\"" + "k".repeat(201) + "\"}",
                "{\"orderingKey\":7}")) {
            Api.Reply r = api.post(ADMIN, "admin/dead-letters/replay", bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertTrue(r.isProblem() && r.body().contains("orderingKey"), r.toString());
        }
        assertEquals(400, api.get(ADMIN, "admin/dead-letters?orderingKey=").status());
        JsonObject listed = api.get(ADMIN, "admin/dead-letters?appId=" + app + "&orderingKey=customer-8").object();
        assertEquals("customer-8", listed.getJsonArray("items").getJsonObject(0).getString("orderingKey"), listed.toString());
        assertEquals("customer-8", api.get(ADMIN, "admin/dead-letters/" + other).object().getString("orderingKey"));
        assertTrue(api.get(ADMIN, "admin/dead-letters/" + unkeyed).object().isNull("orderingKey"), "a dead letter in no lane");

        Api.Reply replayed = api.post(ADMIN, "admin/dead-letters/replay",
                "{\"appId\":\"%s\",\"orderingKey\":\"customer-7\"}".formatted(app));
        assertEquals(200, replayed.status(), replayed.toString());
        assertEquals(3, replayed.object().getInt("replayed"));
        for (UUID id : lane) {
            Eventually.until(WAIT, () -> "delivered".equals(status(id)), () -> status(id));
        }
        assertEquals("dead", status(other), "another lane's dead letter stays");
        assertEquals("dead", status(unkeyed), "a dead letter in no lane stays");
        JsonObject entry = api.get(ADMIN, "admin/audit?action=dead-letters.bulk-replay&targetId=" + lane.iterator().next())
                .object().getJsonArray("items").getJsonObject(0);
        assertEquals("customer-7", entry.getJsonObject("filter").getString("orderingKey"));
    }

    @Test
    void aReplayKeepsTheRowsAttemptBudgetAndARepeatedKeyReplaysNothing() {
        UUID app = UUID.randomUUID();
        UUID trigger = UUID.fromString(trigger(app, "kv", "failing"));
        UUID id = deadLetter(app, "kv", "boom", 1, trigger);
        // the row had one attempt to spend (as an invokeAsync row has), not the default 3
        ItDatabase.update("UPDATE dead_letters SET max_attempts = 1 WHERE id = ?", id);
        Map<String, String> key = Map.of("Idempotency-Key", "replay-" + id);

        Api.Reply first = api.call(ADMIN, "POST", "admin/dead-letters/" + id + "/replay", "", key);
        assertEquals(201, first.status(), first.toString());
        // one failed attempt and it is dead again: its own budget, not the trigger's or the default
        Eventually.until(WAIT, () -> "dead".equals(status(id)), () -> status(id));
        JsonObject again = api.get(ADMIN, "admin/dead-letters/" + id).object();
        assertEquals(1, again.getInt("attemptCount"), again.toString());
        assertEquals(1, again.getInt("maxAttempts"), again.toString());
        assertTrue(again.getString("lastError").contains("boom on attempt 1"), again.toString());

        // the same key answers the first answer again and replays nothing
        Api.Reply repeat = api.call(ADMIN, "POST", "admin/dead-letters/" + id + "/replay", "", key);
        assertEquals(201, repeat.status(), repeat.toString());
        assertEquals(first.location(), repeat.location());
        assertEquals(first.body(), repeat.body());
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE id = ?", id), "still a dead letter");
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM outbox WHERE id = ?", id), "not back in the outbox");
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM admin_audit WHERE action = 'dead-letter.replay' AND ? = ANY (target_ids)", id));

        // the bulk replay honours a key too: the repeat answers the first result and moves nothing
        Map<String, String> bulkKey = Map.of("Idempotency-Key", "bulk-" + id);
        String filter = "{\"appId\":\"" + app + "\"}";
        Api.Reply bulk = api.call(ADMIN, "POST", "admin/dead-letters/replay", filter, bulkKey);
        assertEquals(200, bulk.status(), bulk.toString());
        assertEquals(1, bulk.object().getInt("replayed"), bulk.toString());
        Eventually.until(WAIT, () -> "dead".equals(status(id)), () -> status(id));
        Api.Reply bulkRepeat = api.call(ADMIN, "POST", "admin/dead-letters/replay", filter, bulkKey);
        assertEquals(bulk.body(), bulkRepeat.body());
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE id = ?", id), "the repeat replayed nothing");
    }

    private String status(UUID id) {
        Api.Reply r = api.get(ADMIN, "outbox/" + id);
        return r.status() == 200 ? r.object().getString("status") : "HTTP " + r.status();
    }

    @Test
    void everyAdminActionIsAuditedWithWhoAndWhatAndThePagesWalkBack() {
        UUID app = UUID.randomUUID();
        String trigger = trigger(app, "kv", "recorder");
        UUID replayed = deadLetter(app, "kv", "boom", 3, UUID.fromString(trigger));
        UUID discarded = deadLetter(app, "kv", "boom", 2, UUID.fromString(trigger));
        assertEquals(201, api.post(ADMIN, "admin/dead-letters/" + replayed + "/replay", null).status());
        // delivered before its trigger is changed and deleted below
        Eventually.until(WAIT, () -> "delivered".equals(status(replayed)), () -> status(replayed));
        assertEquals(204, api.call(ADMIN, "DELETE", "admin/dead-letters/" + discarded, null).status());
        assertEquals(204, api.post(ADMIN, "admin/dispatcher/pause", null).status());
        assertEquals(204, api.post(ADMIN, "admin/dispatcher/resume", null).status());
        assertEquals(200, api.call(ADMIN, "PUT", "apps/" + app + "/triggers/" + trigger,
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"recorder\"},\"enabled\":false}").status());
        assertEquals(204, api.call(ADMIN, "DELETE", "apps/" + app + "/triggers/" + trigger, null).status());
        // a refused action leaves no record
        assertEquals(404, api.call(ADMIN, "DELETE", "admin/dead-letters/" + discarded, null).status());

        assertEquals(List.of("dead-letter.replay"), actions("targetId=" + replayed));
        assertEquals(List.of("dead-letter.discard"), actions("targetId=" + discarded));
        assertEquals(List.of("trigger.delete", "trigger.replace", "trigger.create"), actions("targetId=" + trigger));

        // the newest entries, paged one at a time: resume, then pause, then the discard
        List<JsonObject> newest = new ArrayList<>();
        String cursor = null;
        for (int i = 0; i < 5; i++) {
            Api.Reply page = api.get(ADMIN, "admin/audit?limit=1" + (cursor == null ? "" : "&cursor=" + cursor));
            assertEquals(200, page.status(), page.toString());
            assertEquals(1, page.object().getJsonArray("items").size());
            newest.add(page.object().getJsonArray("items").getJsonObject(0));
            cursor = page.object().getString("nextCursor");
        }
        List<String> recent = newest.stream().map(e -> e.getString("action")).toList();
        assertTrue(recent.indexOf("dispatcher.resume") < recent.indexOf("dispatcher.pause"), recent.toString());
        assertTrue(recent.indexOf("dispatcher.pause") < recent.indexOf("dead-letter.discard"), recent.toString());
        newest.forEach(e -> assertEquals(ADMIN, e.getString("principal")));

        // the row's trail shows where it stands and the replay
        JsonObject trail = api.get(ADMIN, "admin/rows/" + replayed).object();
        assertEquals("delivered", trail.getJsonObject("row").getString("status"));
        assertEquals("dead-letter.replay", trail.getJsonArray("audit").getJsonObject(0).getString("action"));
        assertEquals(404, api.get(ADMIN, "admin/rows/" + UUID.randomUUID()).status());

        for (String bad : List.of("limit=0", "cursor=abc", "targetId=zz", "action=" + "a".repeat(101))) {
            Api.Reply r = api.get(ADMIN, "admin/audit?" + bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
        }
    }

    private List<String> actions(String query) {
        return api.get(ADMIN, "admin/audit?" + query).object().getJsonArray("items").getValuesAs(JsonObject.class)
                .stream().map(e -> e.getString("action")).toList();
    }

    /**
     * Twenty rows of one failure are one group (ids, times and numbers taken out), apart from another failure and
     * another trigger's same failure; a group is replayed or discarded whole through its triggerId and errorGroup,
     * audited; a bad filter changes nothing.
     */
    @Test
    void deadLettersAreGroupedByFailureAndAGroupIsReplayedOrDiscardedWhole() {
        UUID app = UUID.randomUUID();
        UUID first = UUID.fromString(trigger(app, "kv", "recorder"));
        UUID second = UUID.fromString(trigger(app, "docs", "recorder"));
        for (int i = 0; i < 20; i++) {
            deadLetter(app, "kv", "webhook answered 503 after " + (100 + i) + " ms at 2026-12-0" + (1 + i % 9) + "T10:1" + i % 10
                    + ":00Z (request " + UUID.randomUUID() + ")", i, first);
        }
        deadLetter(app, "kv", "handler threw IllegalStateException: no stock", 1, first);
        deadLetter(app, "kv", "handler threw IllegalStateException: no stock", 2, first);
        deadLetter(app, "docs", "webhook answered 503 after 7 ms at 2026-12-01T10:00:00Z (request " + UUID.randomUUID() + ")", 3, second);

        Api.Reply page = api.get(ADMIN, "admin/dead-letters/groups?appId=" + app);
        assertEquals(200, page.status(), page.toString());
        List<JsonObject> groups = page.object().getJsonArray("items").getValuesAs(JsonObject.class);
        assertEquals(3, groups.size(), page.toString());
        JsonObject big = groups.get(0);
        assertEquals(20, big.getInt("count"), big.toString());
        assertEquals(first.toString(), big.getString("triggerId"));
        assertEquals("webhook answered <n> after <n> ms at <time> (request <id>)", big.getString("errorGroup"));
        assertTrue(big.getString("sampleError").startsWith("webhook answered 503 after 100 ms"), "the newest row: " + big);
        assertTrue(OffsetDateTime.parse(big.getString("firstSeen")).isBefore(OffsetDateTime.parse(big.getString("lastSeen"))), big.toString());
        assertEquals(List.of(2, 1), groups.subList(1, 3).stream().map(g -> g.getInt("count")).toList());
        Api.Reply paged = api.get(ADMIN, "admin/dead-letters/groups?appId=" + app + "&limit=2");
        assertEquals("2", paged.object().getString("nextCursor"), paged.toString());
        assertEquals(1, api.get(ADMIN, "admin/dead-letters/groups?appId=" + app + "&limit=2&cursor=2").object()
                .getJsonArray("items").size());

        String group = "{\"appId\":\"" + app + "\",\"triggerId\":\"" + first + "\",\"errorGroup\":\"" + big.getString("errorGroup") + "\"";
        Api.Reply replayed = api.post(ADMIN, "admin/dead-letters/replay", group + ",\"limit\":15}");
        assertEquals(200, replayed.status(), replayed.toString());
        assertEquals(15, replayed.object().getInt("replayed"));
        assertTrue(replayed.object().getBoolean("more"));
        Api.Reply discarded = api.post(ADMIN, "admin/dead-letters/discard", group + "}");
        assertEquals(200, discarded.status(), discarded.toString());
        assertEquals(5, discarded.object().getInt("discarded"), "the rest of the group, and nothing of the others");
        assertFalse(discarded.object().getBoolean("more"));
        assertEquals(3, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app), "the other groups stay");
        JsonObject audited = api.get(ADMIN, "admin/audit?action=dead-letters.bulk-discard").object().getJsonArray("items").getJsonObject(0);
        assertEquals(5, audited.getInt("affected"));
        assertEquals(big.getString("errorGroup"), audited.getJsonObject("filter").getString("errorGroup"));

        for (String bad : List.of("{}", "{\"errorGroup\":\"\"}", "{\"triggerId\":\"nope\"}", "{\"appId\":\"" + app + "\",\"size\":1}")) {
            Api.Reply refused = api.post(ADMIN, "admin/dead-letters/discard", bad);
            assertEquals(400, refused.status(), bad + " " + refused);
            assertTrue(refused.isProblem(), refused.toString());
        }
        assertEquals(400, api.get(ADMIN, "admin/dead-letters/groups?cursor=-1").status());
        assertEquals(400, api.get(ADMIN, "admin/dead-letters/groups?triggerId=nope").status());
        assertEquals(405, api.call(ADMIN, "DELETE", "admin/dead-letters/groups", null).status());
        assertEquals(405, api.get(ADMIN, "admin/dead-letters/discard").status());
        assertEquals(403, api.get(PRODUCER_A, "admin/dead-letters/groups").status());
        assertEquals(3, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app), "a refusal changed something");
    }

    @Test
    void nodesActivityAndBreakdownsShowWhatHappened() {
        // this server's dispatcher reports itself within a second or two
        Eventually.until(WAIT, () -> !api.get(ADMIN, "admin/nodes").object().getJsonArray("items").isEmpty(), () -> "no node");
        JsonObject node = api.get(ADMIN, "admin/nodes").object().getJsonArray("items").getJsonObject(0);
        assertEquals("alive", node.getString("status"), node.toString());
        assertTrue(node.getJsonNumber("lastTickAgeSeconds").doubleValue() < 10, node.toString());
        assertTrue(node.containsKey("inFlight") && node.containsKey("startedAt") && node.containsKey("lastTickAt"), node.toString());

        String trigger = trigger(APP_A, "invoke", "recorder");
        JsonObject before = lastMinutes();
        long deliveredBefore = total(before, "delivered");
        for (int i = 0; i < 4; i++) {
            Api.Reply r = api.post(PRODUCER_A, "outbox",
                    "{\"appId\":\"%s\",\"sourceKind\":\"invoke\",\"triggerId\":\"%s\",\"payload\":{}}".formatted(APP_A, trigger));
            String id = r.object().getString("id");
            Eventually.until(WAIT, () -> "delivered".equals(status(UUID.fromString(id))), () -> status(UUID.fromString(id)));
        }
        // the console's counts may be as old as outbox.console.counts-max-age-ms (2 s)
        Eventually.until(WAIT, () -> total(lastMinutes(), "delivered") >= deliveredBefore + 4, () -> before + " -> " + lastMinutes());
        assertEquals(60, lastMinutes().getJsonArray("items").size());
        assertEquals(5, api.get(ADMIN, "admin/activity?minutes=5").object().getJsonArray("items").size());
        assertEquals(400, api.get(ADMIN, "admin/activity?minutes=181").status());

        Eventually.until(WAIT, () -> breakdownLine("sourceKind", "invoke").getInt("deliveredLastHour") >= 4,
                () -> breakdownLine("sourceKind", "invoke").toString());
        Eventually.until(WAIT, () -> breakdownLine("appId", APP_A.toString()).getInt("deliveredLastHour") >= 4,
                () -> breakdownLine("appId", APP_A.toString()).toString());
        assertEquals(400, api.get(ADMIN, "admin/breakdown?by=colour").status());
    }

    private JsonObject breakdownLine(String by, String key) {
        return api.get(ADMIN, "admin/breakdown?limit=500&by=" + by).object().getJsonArray("items").getValuesAs(JsonObject.class)
                .stream().filter(k -> key.equals(k.getString(by))).findFirst().orElse(Json.createObjectBuilder().add("deliveredLastHour", -1).build());
    }

    @Test
    void everyConsoleIsServedFromOneSnapshotOfTheCounts() throws Exception {
        // twenty overview refreshes at once (one console's three parts, many consoles) take one pass over the tables
        List<java.util.concurrent.CompletableFuture<JsonObject>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> api.get(ADMIN, "admin/stats").object()));
        }
        Set<String> seen = new HashSet<>();
        for (var call : calls) {
            seen.add(call.get(30, java.util.concurrent.TimeUnit.SECONDS).getString("asOf"));
        }
        assertTrue(seen.size() <= 2, "at most one refresh while they ran: " + seen);

        // a stats call and a breakdown of the same snapshot agree
        Eventually.until(WAIT, () -> {
            JsonObject first = api.get(ADMIN, "admin/stats").object();
            JsonArray kinds = api.get(ADMIN, "admin/breakdown?by=sourceKind&limit=500").object().getJsonArray("items");
            JsonObject last = api.get(ADMIN, "admin/stats").object();
            if (!first.getString("asOf").equals(last.getString("asOf"))) {
                return false; // a refresh fell between them: try again
            }
            long waiting = kinds.getValuesAs(JsonObject.class).stream().mapToLong(k -> k.getJsonNumber("waiting").longValue()).sum();
            long dead = kinds.getValuesAs(JsonObject.class).stream().mapToLong(k -> k.getJsonNumber("dead").longValue()).sum();
            assertEquals(first.getJsonNumber("pending").longValue() + first.getJsonNumber("scheduled").longValue()
                    + first.getJsonNumber("held").longValue(), waiting, first + " vs " + kinds);
            assertEquals(first.getJsonNumber("dead").longValue(), dead, first + " vs " + kinds);
            return true;
        }, () -> "every try straddled a refresh");

        // and the snapshot is renewed once it is older than its maximum age
        String asOf = api.get(ADMIN, "admin/stats").object().getString("asOf");
        Eventually.until(WAIT, () -> !asOf.equals(api.get(ADMIN, "admin/stats").object().getString("asOf")), () -> "still " + asOf);
    }

    private JsonObject lastMinutes() {
        Api.Reply r = api.get(ADMIN, "admin/activity");
        assertEquals(200, r.status(), r.toString());
        return r.object();
    }

    private static long total(JsonObject activity, String field) {
        return activity.getJsonArray("items").getValuesAs(JsonObject.class).stream().mapToLong(m -> m.getJsonNumber(field).longValue()).sum();
    }

    @Test
    void triggersOfEveryAppArePagedAndFiltered() {
        UUID app = UUID.randomUUID();
        Set<String> made = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            made.add(trigger(app, i < 3 ? "docs" : "email", "recorder"));
        }
        List<String> all = ids("admin/triggers?appId=" + app + "&limit=2");
        assertEquals(made, Set.copyOf(all));
        assertEquals(5, all.size());
        assertEquals(3, ids("admin/triggers?appId=" + app + "&sourceKind=docs").size());
        JsonObject one = api.get(ADMIN, "admin/triggers?appId=" + app + "&limit=1").object().getJsonArray("items").getJsonObject(0);
        assertFalse(one.containsKey("secret"), "no secret in lists");
        assertEquals("handler", one.getJsonObject("target").getString("type"));
        assertEquals(400, api.get(ADMIN, "admin/triggers?cursor=zz").status());
    }

    @Test
    void theAdminApiIsForAdminsOnly() {
        UUID some = UUID.randomUUID();
        List<String[]> calls = List.of(
                new String[] {"GET", "admin/dead-letters?error=x"}, new String[] {"GET", "admin/dead-letters/" + some},
                new String[] {"POST", "admin/dead-letters/replay"}, new String[] {"GET", "admin/audit"},
                new String[] {"GET", "admin/nodes"}, new String[] {"GET", "admin/activity"},
                new String[] {"GET", "admin/breakdown"}, new String[] {"GET", "admin/triggers"},
                new String[] {"GET", "admin/rows/" + some});
        for (String[] c : calls) {
            String body = "POST".equals(c[0]) ? "{\"all\":true}" : null;
            assertEquals(401, api.call(null, c[0], c[1], body).status(), c[1]);
            assertEquals(403, api.call(NOBODY, c[0], c[1], body).status(), c[1]);
            Api.Reply producer = api.call(PRODUCER_A, c[0], c[1], body);
            assertEquals(403, producer.status(), c[1]);
            assertTrue(producer.isProblem(), producer.toString());
        }
    }

    @Test
    void theOpenApiDocumentIsServedToSignedInCallers() {
        Api.Reply doc = api.get(PRODUCER_A, "openapi.json");
        assertEquals(200, doc.status(), doc.toString());
        assertEquals("3.1.0", doc.object().getString("openapi"));
        assertTrue(doc.object().getJsonObject("paths").containsKey("/admin/dead-letters/replay"));
        assertEquals(200, api.get(ADMIN, "openapi.json").status());
        assertEquals(401, api.get(null, "openapi.json").status());
        assertEquals(403, api.get(NOBODY, "openapi.json").status());
    }

    @Test
    void theConsolePageIsOpenButHoldsNoData() {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        try {
            for (String path : List.of("", "index.html", "console/app.js", "console/console.css")) {
                java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(base + path)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), path);
                assertTrue(r.headers().firstValue("Content-Security-Policy").orElse("").contains("frame-ancestors 'none'"), path);
                assertFalse(r.body().contains(APP_A.toString()), path);
            }
            java.net.http.HttpResponse<String> other = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(base + "WEB-INF/web.xml")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertTrue(other.statusCode() == 401 || other.statusCode() == 404, "other paths stay closed: " + other.statusCode());
            java.net.http.HttpResponse<String> unknown = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(base + "console-backup.zip")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(401, unknown.statusCode());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** GET /admin/rows: each status where it lives, filtered, newest first, in cursor pages; bad parameters refused. */
    @Test
    void everyRowIsBrowsedByStatusAndFilter() {
        UUID app = UUID.randomUUID();
        Api.Reply created = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"recorder\"}}");
        assertEquals(201, created.status(), created.toString());
        String trigger = created.object().getString("id");
        String later = java.time.OffsetDateTime.now().plusHours(1).toString();
        List<String> scheduled = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Api.Reply r = api.post(ADMIN, "outbox", """
                    {"appId":"%s","triggerId":"%s","sourceKind":"kv","payload":%d,"deliverAt":"%s","orderingKey":"k%d"}"""
                    .formatted(app, trigger, i, later, i % 2));
            assertEquals(201, r.status(), r.toString());
            scheduled.add(0, r.object().getString("id")); // newest first
        }
        Api.Reply now = api.post(ADMIN, "outbox", """
                {"appId":"%s","triggerId":"%s","sourceKind":"kv","payload":9}""".formatted(app, trigger));
        String delivered = now.object().getString("id");
        UUID dead = deadLetter(app, "kv", "boom 1", 5, UUID.fromString(trigger));
        Eventually.until(WAIT, () -> listed("admin/rows?status=delivered&appId=" + app).equals(List.of(delivered)),
                () -> api.get(ADMIN, "admin/rows?status=delivered&appId=" + app).toString());

        assertEquals(scheduled, listed("admin/rows?status=scheduled&appId=" + app));
        assertEquals(scheduled, listed("admin/rows?appId=" + app), "no status: every row in the outbox");
        assertEquals(List.of(scheduled.get(0), scheduled.get(2)), listed("admin/rows?appId=" + app + "&orderingKey=k0"));
        assertEquals(List.of(), listed("admin/rows?status=pending&appId=" + app));
        assertEquals(List.of(dead.toString()), listed("admin/rows?status=dead&appId=" + app));
        assertEquals(List.of(), listed("admin/rows?status=scheduled&appId=" + app + "&triggerId=" + UUID.randomUUID()));
        assertEquals(List.of(), listed("admin/rows?status=scheduled&appId=" + app + "&from=" + later.replace("+", "%2B")));
        JsonObject one = api.get(ADMIN, "admin/rows?status=scheduled&appId=" + app).object().getJsonArray("items").getJsonObject(0);
        assertEquals("k0", one.getString("orderingKey"));
        assertEquals(trigger, one.getString("triggerId"));
        assertEquals("scheduled", one.getString("status"));

        // pages of one: the cursor walks all three, then ends
        List<String> walked = new java.util.ArrayList<>();
        String cursor = null;
        do {
            JsonObject page = api.get(ADMIN, "admin/rows?status=scheduled&limit=1&appId=" + app + (cursor == null ? "" : "&cursor=" + cursor)).object();
            page.getJsonArray("items").getValuesAs(JsonObject.class).forEach(r -> walked.add(r.getString("id")));
            cursor = page.isNull("nextCursor") ? null : page.getString("nextCursor");
        } while (cursor != null && walked.size() < 10);
        assertEquals(scheduled, walked);

        // the console's bulk cancel of a lane: one ordering key
        Api.Reply cancel = api.post(ADMIN, "admin/outbox/cancel", "{\"appId\":\"" + app + "\",\"orderingKey\":\"k1\"}");
        assertEquals(200, cancel.status(), cancel.toString());
        assertEquals(1, cancel.object().getInt("cancelled"), cancel.toString());
        assertEquals(List.of(scheduled.get(1)), listed("admin/rows?status=cancelled&appId=" + app));

        for (String bad : List.of("status=late", "status=delivered&orderingKey=k0", "orderingKey=", "from=yesterday",
                "to=10000-01-01T00:00:00Z", "limit=0", "cursor=nope", "triggerId=7", "sourceKind=nope")) {
            Api.Reply r = api.get(ADMIN, "admin/rows?" + bad);
            assertEquals(400, r.status(), bad + ": " + r);
            assertTrue(r.isProblem(), r.toString());
        }
        assertEquals(403, api.get(PRODUCER_A, "admin/rows").status());
    }

    /** GET /admin/triggers: each trigger's last hour (delivered, dead, attempt p50/p99) and a webhook's circuit on this node. */
    @Test
    void triggersShowTheirLastHourAndCircuit() {
        UUID app = UUID.randomUUID();
        Api.Reply handler = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"kv\",\"target\":{\"type\":\"handler\",\"name\":\"recorder\"}}");
        String delivering = handler.object().getString("id");
        // nothing listens on port 9 of loopback: every attempt is refused, and after 5 the origin's circuit opens
        Api.Reply webhook = api.post(ADMIN, "apps/" + app + "/triggers",
                "{\"sourceKind\":\"docs\",\"target\":{\"type\":\"webhook\",\"url\":\"http://127.0.0.1:9/down\"},\"maxAttempts\":100}");
        String refused = webhook.object().getString("id");
        for (int i = 0; i < 6; i++) {
            assertEquals(202, api.post(ADMIN, "apps/" + app + "/events", "{\"sourceKind\":\"kv\",\"payload\":" + i + "}").status());
            assertEquals(202, api.post(ADMIN, "apps/" + app + "/events", "{\"sourceKind\":\"docs\",\"payload\":" + i + "}").status());
        }
        java.util.function.Function<String, JsonObject> item = id -> api.get(ADMIN, "admin/triggers?appId=" + app).object()
                .getJsonArray("items").getValuesAs(JsonObject.class).stream().filter(t -> t.getString("id").equals(id)).findFirst().orElseThrow();
        Eventually.until(WAIT, () -> item.apply(delivering).getJsonObject("lastHour").getInt("delivered") == 6,
                () -> item.apply(delivering).toString());
        JsonObject hour = item.apply(delivering).getJsonObject("lastHour");
        assertEquals(0, hour.getInt("dead"));
        assertTrue(hour.getInt("p50Ms") >= 0 && hour.getInt("p99Ms") >= hour.getInt("p50Ms"), hour.toString());
        assertFalse(item.apply(delivering).containsKey("circuit"), "a handler has no circuit");
        Eventually.until(WAIT, () -> !item.apply(refused).getString("circuit").equals("closed"), () -> item.apply(refused).toString());
        JsonObject down = item.apply(refused).getJsonObject("lastHour");
        assertEquals(0, down.getInt("delivered"));
        assertTrue(down.isNull("p50Ms"), down.toString());
        assertEquals(204, api.call(ADMIN, "DELETE", "apps/" + app + "/triggers/" + refused, null).status());
    }

    private List<String> listed(String path) {
        Api.Reply r = api.get(ADMIN, path);
        assertEquals(200, r.status(), r.toString());
        return r.object().getJsonArray("items").getValuesAs(JsonObject.class).stream().map(o -> o.getString("id")).toList();
    }
}
