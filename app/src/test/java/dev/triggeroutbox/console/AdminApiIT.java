package dev.triggeroutbox.console;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.NOBODY;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
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
 * database with chosen errors), so other tests' rows never change what it counts. Calls go through
 * the typed client and OutboxApi; refused filters and who may call are raw requests.
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
    private OutboxClient client;
    private OutboxApi admin;

    @BeforeEach
    void client() {
        api = new Api(base);
        client = ItClients.client(base, ADMIN);
        admin = ItClients.restClient(base, ADMIN);
    }

    @AfterEach
    void close() {
        ItClients.close(admin);
        client.close();
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

    private UUID trigger(UUID app, String kind, String handler) {
        return client.createTrigger(app, TriggerDefinition.handler(kind, handler), Call.plain()).id();
    }

    /** The ids of every page, the cursor of one page passed back for the next. */
    private static List<String> ids(Function<String, JsonObject> pageAfter) {
        List<String> all = new ArrayList<>();
        String cursor = null;
        do {
            JsonObject page = pageAfter.apply(cursor);
            all.addAll(ids(page));
            cursor = page.isNull("nextCursor") ? null : page.getString("nextCursor");
        } while (cursor != null);
        return all;
    }

    private static List<String> ids(JsonObject page) {
        return page.getJsonArray("items").getValuesAs(JsonObject.class).stream().map(o -> o.getString("id")).toList();
    }

    /** Dead letters of the app, with a kind, a text of the error and a page size (each may be null). */
    private Function<String, JsonObject> deadLetters(UUID app, String kind, String error, Integer limit) {
        return cursor -> admin.deadLetters(app.toString(), kind, error, limit, cursor);
    }

    @Test
    void deadLettersArePagedNewestFirstAndFilteredByAppKindAndErrorText() {
        UUID app = UUID.randomUUID();
        List<UUID> newestFirst = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            newestFirst.add(0,
                    deadLetter(app, i % 2 == 0 ? "kv" : "docs", "HTTP 503 from target, try " + i, 30 - i, null));
        }
        UUID odd = deadLetter(app, "kv", "timeout 100% of the time_", 40, null);

        // pages of 3 walk every dead letter of the app once, newest first
        List<String> paged = ids(deadLetters(app, null, null, 3));
        List<String> expected = new ArrayList<>(newestFirst.stream().map(UUID::toString).toList());
        expected.add(odd.toString());
        assertEquals(expected, paged);
        JsonObject first = admin.deadLetters(app.toString(), null, null, 3, null);
        assertEquals(3, first.getJsonArray("items").size());
        assertFalse(first.isNull("nextCursor"));

        assertEquals(5, ids(deadLetters(app, "kv", null, 2)).size());
        assertEquals(List.of(newestFirst.get(6 - 3).toString()), ids(deadLetters(app, null, "try 3", null)));
        assertEquals(7, ids(deadLetters(app, null, "http 503", null)).size(), "case-insensitive");
        // % and _ are taken literally, not as LIKE wildcards
        assertEquals(List.of(odd.toString()), ids(deadLetters(app, null, "100% of the time_", null)));
        assertEquals(List.of(), ids(deadLetters(app, null, "1_0", null)));
        assertEquals(List.of(), ids(deadLetters(app, "http", null, null)));

        // by hand, as one table: values out of range, and ones that are no number, UUID, kind or cursor
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
            ItDatabase.update(
                    "UPDATE dead_letters SET payload = jsonb_build_object('s', repeat('x', 262144 - 9)) WHERE id = ?",
                    id);
            newestFirst.add(0, id.toString());
        }
        assertEquals(262144, ItDatabase.count("SELECT octet_length(payload::text) FROM dead_letters WHERE id = ?::uuid",
                newestFirst.get(0)));

        JsonObject first = admin.deadLetters(app.toString(), null, null, 500, null);
        List<JsonObject> items = first.getJsonArray("items").getValuesAs(JsonObject.class);
        // 16 payloads of 256 KiB are the 4 MiB bound: the 17th would pass it, so the page ends before it
        assertEquals(16, items.size());
        assertEquals(262144 - 9, items.get(15).getJsonObject("payload").getString("s").length(), "payloads come whole");
        assertFalse(first.isNull("nextCursor"), "more to come");
        assertEquals(newestFirst, ids(deadLetters(app, null, null, 500)), "the next pages go on without loss");
    }

    @Test
    void oneDeadLetterInFull() {
        UUID app = UUID.randomUUID();
        UUID trigger = trigger(app, "files", "recorder");
        UUID id = deadLetter(app, "files", "IllegalStateException: disk full", 1, trigger);
        JsonObject d = admin.deadLetter(id);
        assertEquals(id.toString(), d.getString("id"));
        assertEquals(app.toString(), d.getString("appId"));
        assertEquals("files", d.getString("sourceKind"));
        assertEquals(3, d.getInt("attemptCount"));
        assertEquals("IllegalStateException: disk full", d.getString("lastError"));
        assertEquals(1, d.getJsonObject("payload").getInt("n"));
        assertEquals("it-producer", d.getString("originPrincipal"));
        assertEquals("it-node", d.getString("deadBy"));
        assertEquals(0, d.getInt("triggerDepth"));
        assertTrue(d.containsKey("rootExecutionId") && d.containsKey("replyTo") && d.containsKey("scriptId"),
                d.toString());
        assertEquals("handler", d.getJsonObject("trigger").getString("targetType"));
        assertEquals("recorder", d.getJsonObject("trigger").getString("target"));

        assertEquals(404, assertThrows(ProblemException.class, () -> admin.deadLetter(UUID.randomUUID())).status());
        assertEquals(404, api.get(ADMIN, "admin/dead-letters/not-a-uuid").status());
    }

    @Test
    void bulkReplayMovesWhatMatchesBoundedAndIsAudited() {
        UUID app = UUID.randomUUID();
        UUID trigger = trigger(app, "pubsub", "recorder");
        Set<UUID> matching = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            matching.add(deadLetter(app, "pubsub", "connection refused #" + i, 10 + i, trigger));
        }
        UUID other = deadLetter(app, "pubsub", "410 Gone", 5, trigger);

        // an empty filter must say all: true (the refusals by hand, as written)
        Api.Reply refused = api.post(ADMIN, "admin/dead-letters/replay", "{}");
        assertEquals(400, refused.status(), refused.toString());
        assertTrue(refused.body().contains("all"), refused.body());
        for (String bad : List.of("{\"limit\":1001,\"appId\":\"" + app + "\"}", "{\"appId\":\"x\"}", "{\"colour\":1}",
                "{\"sourceKind\":\"smtp\"}", "[]")) {
            Api.Reply r = api.post(ADMIN, "admin/dead-letters/replay", bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
        }
        assertEquals(6, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app),
                "refused calls change nothing");

        JsonObject filter = Json.createObjectBuilder().add("appId", app.toString()).add("sourceKind", "pubsub")
                .add("error", "CONNECTION REFUSED").add("limit", 3).build();
        JsonObject r1 = admin.replayDeadLetters(filter, null);
        assertEquals(3, r1.getInt("replayed"));
        assertTrue(r1.getBoolean("more"));
        JsonObject r2 = admin.replayDeadLetters(filter, null);
        assertEquals(2, r2.getInt("replayed"));
        assertFalse(r2.getBoolean("more"));
        assertEquals(0, admin.replayDeadLetters(filter, null).getInt("replayed"));

        Set<UUID> replayed = new HashSet<>();
        for (JsonObject r : List.of(r1, r2)) {
            r.getJsonArray("ids").getValuesAs(jakarta.json.JsonString.class)
                    .forEach(s -> replayed.add(UUID.fromString(s.getString())));
        }
        assertEquals(matching, replayed);
        for (UUID id : matching) {
            Eventually.until(WAIT, () -> "delivered".equals(status(id)), () -> status(id));
        }
        assertEquals("dead", status(other), "the dead letter that did not match stays");

        // the audit record: who, when, what, which rows, with which filter
        JsonObject entry = admin.audit("dead-letters.bulk-replay", replayed.iterator().next().toString(), null, null)
                .getJsonArray("items").getJsonObject(0);
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
        UUID trigger = trigger(app, "pubsub", "recorder");
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
                new HashSet<>(
                        ids(cursor -> admin.deadLetters(app.toString(), null, null, null, "customer-7", 2, cursor))));
        // by hand: keys that are empty, too long or no text
        for (String bad : List.of("{\"orderingKey\":\"\"}", "{\"orderingKey\":\"" + "k".repeat(201) + "\"}",
                "{\"orderingKey\":7}")) {
            Api.Reply r = api.post(ADMIN, "admin/dead-letters/replay", bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertTrue(r.isProblem() && r.body().contains("orderingKey"), r.toString());
        }
        assertEquals(400,
                assertThrows(ProblemException.class, () -> admin.deadLetters(null, null, null, null, "", null, null))
                        .status());
        JsonObject listed = admin.deadLetters(app.toString(), null, null, null, "customer-8", null, null);
        assertEquals("customer-8", listed.getJsonArray("items").getJsonObject(0).getString("orderingKey"),
                listed.toString());
        assertEquals("customer-8", admin.deadLetter(other).getString("orderingKey"));
        assertTrue(admin.deadLetter(unkeyed).isNull("orderingKey"), "a dead letter in no lane");

        JsonObject replayed = admin.replayDeadLetters(Json.createObjectBuilder().add("appId", app.toString())
                .add("orderingKey", "customer-7").build(), null);
        assertEquals(3, replayed.getInt("replayed"));
        for (UUID id : lane) {
            Eventually.until(WAIT, () -> "delivered".equals(status(id)), () -> status(id));
        }
        assertEquals("dead", status(other), "another lane's dead letter stays");
        assertEquals("dead", status(unkeyed), "a dead letter in no lane stays");
        JsonObject entry = admin.audit("dead-letters.bulk-replay", lane.iterator().next().toString(), null, null)
                .getJsonArray("items").getJsonObject(0);
        assertEquals("customer-7", entry.getJsonObject("filter").getString("orderingKey"));
    }

    @Test
    void aReplayKeepsTheRowsAttemptBudgetAndARepeatedKeyReplaysNothing() {
        UUID app = UUID.randomUUID();
        UUID trigger = trigger(app, "kv", "failing");
        UUID id = deadLetter(app, "kv", "boom", 1, trigger);
        // the row had one attempt to spend (as an invokeAsync row has), not the default 3
        ItDatabase.update("UPDATE dead_letters SET max_attempts = 1 WHERE id = ?", id);
        Map<String, String> key = Map.of("Idempotency-Key", "replay-" + id);

        // by hand: the repeat's raw answer (Location, body) is compared with the first
        Api.Reply first = api.call(ADMIN, "POST", "admin/dead-letters/" + id + "/replay", "", key);
        assertEquals(201, first.status(), first.toString());
        // one failed attempt and it is dead again: its own budget, not the trigger's or the default
        Eventually.until(WAIT, () -> "dead".equals(status(id)), () -> status(id));
        JsonObject again = admin.deadLetter(id);
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
        assertEquals(1, ItDatabase.count(
                "SELECT count(*) FROM admin_audit WHERE action = 'dead-letter.replay' AND ? = ANY (target_ids)", id));

        // the bulk replay honours a key too: the repeat answers the first result and moves nothing
        String bulkKey = "bulk-" + id;
        JsonObject filter = Json.createObjectBuilder().add("appId", app.toString()).build();
        JsonObject bulk = admin.replayDeadLetters(filter, bulkKey);
        assertEquals(1, bulk.getInt("replayed"), bulk.toString());
        Eventually.until(WAIT, () -> "dead".equals(status(id)), () -> status(id));
        assertEquals(bulk, admin.replayDeadLetters(filter, bulkKey));
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE id = ?", id),
                "the repeat replayed nothing");
    }

    private String status(UUID id) {
        return ItClients.status(client, id);
    }

    @Test
    void everyAdminActionIsAuditedWithWhoAndWhatAndThePagesWalkBack() {
        UUID app = UUID.randomUUID();
        UUID trigger = trigger(app, "kv", "recorder");
        UUID replayed = deadLetter(app, "kv", "boom", 3, trigger);
        UUID discarded = deadLetter(app, "kv", "boom", 2, trigger);
        client.replayDeadLetter(replayed, Call.plain());
        // delivered before its trigger is changed and deleted below
        Eventually.until(WAIT, () -> "delivered".equals(status(replayed)), () -> status(replayed));
        client.discardDeadLetter(discarded);
        client.pause();
        client.resume();
        client.replaceTrigger(app, trigger, TriggerDefinition.handler("kv", "recorder").enabled(false));
        client.deleteTrigger(app, trigger);
        // a refused action leaves no record
        assertEquals(404, assertThrows(ProblemException.class, () -> client.discardDeadLetter(discarded)).status());

        assertEquals(List.of("dead-letter.replay"), actions(replayed));
        assertEquals(List.of("dead-letter.discard"), actions(discarded));
        assertEquals(List.of("trigger.delete", "trigger.replace", "trigger.create"), actions(trigger));

        // the newest entries, paged one at a time: resume, then pause, then the discard
        List<JsonObject> newest = new ArrayList<>();
        String cursor = null;
        for (int i = 0; i < 5; i++) {
            JsonObject page = admin.audit(null, null, 1, cursor);
            assertEquals(1, page.getJsonArray("items").size());
            newest.add(page.getJsonArray("items").getJsonObject(0));
            cursor = page.getString("nextCursor");
        }
        List<String> recent = newest.stream().map(e -> e.getString("action")).toList();
        assertTrue(recent.indexOf("dispatcher.resume") < recent.indexOf("dispatcher.pause"), recent.toString());
        assertTrue(recent.indexOf("dispatcher.pause") < recent.indexOf("dead-letter.discard"), recent.toString());
        newest.forEach(e -> assertEquals(ADMIN, e.getString("principal")));

        // the row's trail shows where it stands and the replay
        JsonObject trail = admin.adminRow(replayed);
        assertEquals("delivered", trail.getJsonObject("row").getString("status"));
        assertEquals("dead-letter.replay", trail.getJsonArray("audit").getJsonObject(0).getString("action"));
        assertEquals(404, assertThrows(ProblemException.class, () -> admin.adminRow(UUID.randomUUID())).status());

        // by hand: values that are no number, cursor or UUID
        for (String bad : List.of("limit=0", "cursor=abc", "targetId=zz", "action=" + "a".repeat(101))) {
            Api.Reply r = api.get(ADMIN, "admin/audit?" + bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertTrue(r.isProblem(), r.toString());
        }
    }

    private List<String> actions(UUID target) {
        return admin.audit(null, target.toString(), null, null).getJsonArray("items").getValuesAs(JsonObject.class)
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
        UUID first = trigger(app, "kv", "recorder");
        UUID second = trigger(app, "docs", "recorder");
        for (int i = 0; i < 20; i++) {
            deadLetter(app, "kv",
                    "webhook answered 503 after " + (100 + i) + " ms at 2026-12-0" + (1 + i % 9) + "T10:1" + i % 10
                            + ":00Z (request " + UUID.randomUUID() + ")",
                    i, first);
        }
        deadLetter(app, "kv", "handler threw IllegalStateException: no stock", 1, first);
        deadLetter(app, "kv", "handler threw IllegalStateException: no stock", 2, first);
        deadLetter(app, "docs",
                "webhook answered 503 after 7 ms at 2026-12-01T10:00:00Z (request " + UUID.randomUUID() + ")", 3,
                second);

        JsonObject page = admin.deadLetterGroups(app.toString(), null, null, null, null, null);
        List<JsonObject> groups = page.getJsonArray("items").getValuesAs(JsonObject.class);
        assertEquals(3, groups.size(), page.toString());
        JsonObject big = groups.get(0);
        assertEquals(20, big.getInt("count"), big.toString());
        assertEquals(first.toString(), big.getString("triggerId"));
        assertEquals("webhook answered <n> after <n> ms at <time> (request <id>)", big.getString("errorGroup"));
        assertTrue(big.getString("sampleError").startsWith("webhook answered 503 after 100 ms"),
                "the newest row: " + big);
        assertTrue(OffsetDateTime.parse(big.getString("firstSeen"))
                .isBefore(OffsetDateTime.parse(big.getString("lastSeen"))), big.toString());
        assertEquals(List.of(2, 1), groups.subList(1, 3).stream().map(g -> g.getInt("count")).toList());
        JsonObject paged = admin.deadLetterGroups(app.toString(), null, null, null, 2, null);
        assertEquals("2", paged.getString("nextCursor"), paged.toString());
        assertEquals(1, admin.deadLetterGroups(app.toString(), null, null, null, 2, "2").getJsonArray("items").size());

        JsonObject group = Json.createObjectBuilder().add("appId", app.toString()).add("triggerId", first.toString())
                .add("errorGroup", big.getString("errorGroup")).build();
        JsonObject replayed = admin.replayDeadLetters(Json.createObjectBuilder(group).add("limit", 15).build(), null);
        assertEquals(15, replayed.getInt("replayed"));
        assertTrue(replayed.getBoolean("more"));
        JsonObject discarded = admin.discardDeadLetters(group);
        assertEquals(5, discarded.getInt("discarded"), "the rest of the group, and nothing of the others");
        assertFalse(discarded.getBoolean("more"));
        assertEquals(3, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app),
                "the other groups stay");
        JsonObject audited = admin.audit("dead-letters.bulk-discard", null, null, null).getJsonArray("items")
                .getJsonObject(0);
        assertEquals(5, audited.getInt("affected"));
        assertEquals(big.getString("errorGroup"), audited.getJsonObject("filter").getString("errorGroup"));

        // by hand: filters that are missing, empty, no UUID or unknown, and calls the API does not offer
        for (String bad : List.of("{}", "{\"errorGroup\":\"\"}", "{\"triggerId\":\"nope\"}",
                "{\"appId\":\"" + app + "\",\"size\":1}")) {
            Api.Reply refused = api.post(ADMIN, "admin/dead-letters/discard", bad);
            assertEquals(400, refused.status(), bad + " " + refused);
            assertTrue(refused.isProblem(), refused.toString());
        }
        assertEquals(400, api.get(ADMIN, "admin/dead-letters/groups?cursor=-1").status());
        assertEquals(400, api.get(ADMIN, "admin/dead-letters/groups?triggerId=nope").status());
        assertEquals(405, api.call(ADMIN, "DELETE", "admin/dead-letters/groups", null).status());
        assertEquals(405, api.get(ADMIN, "admin/dead-letters/discard").status());
        assertEquals(403, api.get(PRODUCER_A, "admin/dead-letters/groups").status());
        assertEquals(3, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app),
                "a refusal changed something");
    }

    @Test
    void nodesActivityAndBreakdownsShowWhatHappened() {
        // this server's dispatcher reports itself within a second or two
        Eventually.until(WAIT, () -> !admin.nodes().getJsonArray("items").isEmpty(), () -> "no node");
        JsonObject node = admin.nodes().getJsonArray("items").getJsonObject(0);
        assertEquals("alive", node.getString("status"), node.toString());
        assertTrue(node.getJsonNumber("lastTickAgeSeconds").doubleValue() < 10, node.toString());
        assertTrue(node.containsKey("inFlight") && node.containsKey("startedAt") && node.containsKey("lastTickAt"),
                node.toString());
        // a node that died (or lost its database as it stopped) two minutes ago, longer than a lease: stopped
        ItDatabase.update("INSERT INTO dispatcher_nodes (node, started_at, last_tick_at, in_flight, paused, poll_ms) "
                + "VALUES ('~gone', now() - interval '1 hour', now() - interval '2 minutes', 3, false, 1000)");
        try {
            JsonObject gone = admin.nodes().getJsonArray("items").getValuesAs(JsonObject.class).stream()
                    .filter(n -> n.getString("node").equals("~gone")).findFirst().orElseThrow();
            assertEquals("stopped", gone.getString("status"), gone.toString());
        } finally {
            ItDatabase.update("DELETE FROM dispatcher_nodes WHERE node = '~gone'");
        }

        UUID trigger = trigger(APP_A, "invoke", "recorder");
        JsonObject before = lastMinutes();
        long deliveredBefore = total(before, "delivered");
        try (OutboxClient producer = ItClients.client(base, PRODUCER_A)) {
            for (int i = 0; i < 4; i++) {
                UUID id = producer.enqueue(NewRow.of(APP_A, "invoke", trigger, JsonValue.EMPTY_JSON_OBJECT));
                Eventually.until(WAIT, () -> "delivered".equals(status(id)), () -> status(id));
            }
        }
        // the console's counts may be as old as outbox.console.counts-max-age-ms (2 s)
        Eventually.until(WAIT, () -> total(lastMinutes(), "delivered") >= deliveredBefore + 4,
                () -> before + " -> " + lastMinutes());
        assertEquals(60, lastMinutes().getJsonArray("items").size());
        assertEquals(5, admin.activity(5).getJsonArray("items").size());
        assertEquals(400, assertThrows(ProblemException.class, () -> admin.activity(181)).status());

        Eventually.until(WAIT, () -> breakdownLine("sourceKind", "invoke").getInt("deliveredLastHour") >= 4,
                () -> breakdownLine("sourceKind", "invoke").toString());
        Eventually.until(WAIT, () -> breakdownLine("appId", APP_A.toString()).getInt("deliveredLastHour") >= 4,
                () -> breakdownLine("appId", APP_A.toString()).toString());
        assertEquals(400, assertThrows(ProblemException.class, () -> admin.breakdown("colour", null)).status());
    }

    private JsonObject breakdownLine(String by, String key) {
        return admin.breakdown(by, 500).getJsonArray("items").getValuesAs(JsonObject.class)
                .stream().filter(k -> key.equals(k.getString(by))).findFirst()
                .orElse(Json.createObjectBuilder().add("deliveredLastHour", -1).build());
    }

    @Test
    void everyConsoleIsServedFromOneSnapshotOfTheCounts() throws Exception {
        // twenty overview refreshes at once (one console's three parts, many consoles) take one pass over the tables
        List<java.util.concurrent.CompletableFuture<JsonObject>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> client.stats()));
        }
        Set<String> seen = new HashSet<>();
        for (var call : calls) {
            seen.add(call.get(30, java.util.concurrent.TimeUnit.SECONDS).getString("asOf"));
        }
        assertTrue(seen.size() <= 2, "at most one refresh while they ran: " + seen);

        // a stats call and a breakdown of the same snapshot agree
        Eventually.until(WAIT, () -> {
            JsonObject first = client.stats();
            JsonArray kinds = admin.breakdown("sourceKind", 500).getJsonArray("items");
            JsonObject last = client.stats();
            if (!first.getString("asOf").equals(last.getString("asOf"))) {
                return false; // a refresh fell between them: try again
            }
            long waiting = kinds.getValuesAs(JsonObject.class).stream()
                    .mapToLong(k -> k.getJsonNumber("waiting").longValue()).sum();
            long dead = kinds.getValuesAs(JsonObject.class).stream().mapToLong(k -> k.getJsonNumber("dead").longValue())
                    .sum();
            assertEquals(first.getJsonNumber("pending").longValue() + first.getJsonNumber("scheduled").longValue()
                    + first.getJsonNumber("held").longValue(), waiting, first + " vs " + kinds);
            assertEquals(first.getJsonNumber("dead").longValue(), dead, first + " vs " + kinds);
            return true;
        }, () -> "every try straddled a refresh");

        // and the snapshot is renewed once it is older than its maximum age
        String asOf = client.stats().getString("asOf");
        Eventually.until(WAIT, () -> !asOf.equals(client.stats().getString("asOf")), () -> "still " + asOf);
    }

    private JsonObject lastMinutes() {
        return admin.activity(null);
    }

    private static long total(JsonObject activity, String field) {
        return activity.getJsonArray("items").getValuesAs(JsonObject.class).stream()
                .mapToLong(m -> m.getJsonNumber(field).longValue()).sum();
    }

    @Test
    void triggersOfEveryAppArePagedAndFiltered() {
        UUID app = UUID.randomUUID();
        Set<String> made = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            made.add(trigger(app, i < 3 ? "docs" : "email", "recorder").toString());
        }
        List<String> all = ids(cursor -> admin.allTriggers(app.toString(), null, 2, cursor));
        assertEquals(made, Set.copyOf(all));
        assertEquals(5, all.size());
        assertEquals(3, ids(cursor -> admin.allTriggers(app.toString(), "docs", null, cursor)).size());
        JsonObject one = admin.allTriggers(app.toString(), null, 1, null).getJsonArray("items").getJsonObject(0);
        assertFalse(one.containsKey("secret"), "no secret in lists");
        assertEquals("handler", one.getJsonObject("target").getString("type"));
        assertEquals(400,
                assertThrows(ProblemException.class, () -> admin.allTriggers(null, null, null, "zz")).status());
    }

    /** By hand: without credentials, and as each role. */
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

    /** By hand: who may read it is the point. */
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
            for (String path : List.of("", "index.html", "console/app.js", "console/pages/overview.js",
                    "console/console.css")) {
                java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(base + path)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), path);
                assertTrue(
                        r.headers().firstValue("Content-Security-Policy").orElse("").contains("frame-ancestors 'none'"),
                        path);
                assertFalse(r.body().contains(APP_A.toString()), path);
            }
            java.net.http.HttpResponse<String> other = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(base + "WEB-INF/web.xml")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertTrue(other.statusCode() == 401 || other.statusCode() == 404,
                    "other paths stay closed: " + other.statusCode());
            java.net.http.HttpResponse<String> unknown = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(base + "console-backup.zip")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
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
        String a = app.toString();
        UUID trigger = trigger(app, "kv", "recorder");
        OffsetDateTime later = OffsetDateTime.now().plusHours(1);
        List<String> scheduled = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            UUID id = client
                    .enqueue(new NewRow(app, "kv", trigger, Json.createValue(i), later).orderingKey("k" + i % 2));
            scheduled.add(0, id.toString()); // newest first
        }
        String delivered = client.enqueue(NewRow.of(app, "kv", trigger, Json.createValue(9))).toString();
        UUID dead = deadLetter(app, "kv", "boom 1", 5, trigger);
        Eventually.until(WAIT, () -> ids(rows("delivered", a, null, null, null, null)).equals(List.of(delivered)),
                () -> rows("delivered", a, null, null, null, null).toString());

        assertEquals(scheduled, ids(rows("scheduled", a, null, null, null, null)));
        assertEquals(scheduled, ids(rows(null, a, null, null, null, null)), "no status: every row in the outbox");
        assertEquals(List.of(scheduled.get(0), scheduled.get(2)), ids(rows(null, a, null, "k0", null, null)));
        assertEquals(List.of(), ids(rows("pending", a, null, null, null, null)));
        assertEquals(List.of(dead.toString()), ids(rows("dead", a, null, null, null, null)));
        assertEquals(List.of(), ids(rows("scheduled", a, UUID.randomUUID().toString(), null, null, null)));
        assertEquals(List.of(), ids(rows("scheduled", a, null, null, later.toString(), null)));
        JsonObject one = rows("scheduled", a, null, null, null, null).getJsonArray("items").getJsonObject(0);
        assertEquals("k0", one.getString("orderingKey"));
        assertEquals(trigger.toString(), one.getString("triggerId"));
        assertEquals("scheduled", one.getString("status"));

        // pages of one: the cursor walks all three, then ends
        assertEquals(scheduled, ids(cursor -> admin.rows("scheduled", a, null, null, null, null, null, 1, cursor)));

        // the console's bulk cancel of a lane: one ordering key
        JsonObject cancel = admin
                .cancelAll(Json.createObjectBuilder().add("appId", a).add("orderingKey", "k1").build());
        assertEquals(1, cancel.getInt("cancelled"), cancel.toString());
        assertEquals(List.of(scheduled.get(1)), ids(rows("cancelled", a, null, null, null, null)));

        // by hand: values that are no status, time, number, cursor, UUID or kind
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
        String delivering = trigger(app, "kv", "recorder").toString();
        // nothing listens on port 9 of loopback: every attempt is refused, and after 5 the origin's circuit opens
        UUID refused = client.createTrigger(app,
                TriggerDefinition.webhook("docs", URI.create("http://127.0.0.1:9/down")).maxAttempts(100),
                Call.plain()).id();
        for (int i = 0; i < 6; i++) {
            client.publish(app, Event.of("kv", Json.createValue(i)));
            client.publish(app, Event.of("docs", Json.createValue(i)));
        }
        java.util.function.Function<Object, JsonObject> item = id -> admin.allTriggers(app.toString(), null, null, null)
                .getJsonArray("items").getValuesAs(JsonObject.class).stream()
                .filter(t -> t.getString("id").equals(id.toString()))
                .findFirst().orElseThrow();
        Eventually.until(WAIT, () -> item.apply(delivering).getJsonObject("lastHour").getInt("delivered") == 6,
                () -> item.apply(delivering).toString());
        JsonObject hour = item.apply(delivering).getJsonObject("lastHour");
        assertEquals(0, hour.getInt("dead"));
        assertTrue(hour.getInt("p50Ms") >= 0 && hour.getInt("p99Ms") >= hour.getInt("p50Ms"), hour.toString());
        assertFalse(item.apply(delivering).containsKey("circuit"), "a handler has no circuit");
        Eventually.until(WAIT, () -> !item.apply(refused).getString("circuit").equals("closed"),
                () -> item.apply(refused).toString());
        JsonObject down = item.apply(refused).getJsonObject("lastHour");
        assertEquals(0, down.getInt("delivered"));
        assertTrue(down.isNull("p50Ms"), down.toString());
        client.deleteTrigger(app, refused);
    }

    /** A page of {@code GET /admin/rows} of the status (null: the outbox), app, trigger, key and start time (each may be null). */
    private JsonObject rows(String status, String app, String trigger, String orderingKey, String from, String cursor) {
        return admin.rows(status, app, trigger, null, orderingKey, from, null, null, cursor);
    }
}
