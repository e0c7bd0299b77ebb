package dev.triggeroutbox.holds;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxApi;
import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.Receiver;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Holds: a held trigger's or app's rows wait unclaimed (status {@code held}, no attempt spent, nothing dead-lettered)
 * while the rest flows, are parked out of the due order by the dispatcher's tick, and are all delivered once
 * released; a disabled trigger holds its rows the same way (also once its own hold is released); every change is
 * audited; bad calls change nothing.
 * A real HTTP receiver on loopback shows what was delivered. Well-formed calls go through the typed client (OutboxApi
 * for the audit, the apps on hold and the bulk cancel), the refused ones it cannot send as raw requests.
 */
@ExtendWith(ArquillianExtension.class)
class HoldsIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int ROWS = 20;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private OutboxClient client;
    private OutboxApi admin;
    private Receiver receiver;
    private final UUID app = UUID.randomUUID();

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        client = ItClients.client(base, ADMIN);
        admin = ItClients.restClient(base, ADMIN);
        receiver = new Receiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        ItClients.close(admin);
        client.close();
        api.close();
    }

    private String webhook(UUID owner, String path) {
        receiver.script(path, n -> Receiver.Answer.of(204));
        return client
                .createTrigger(owner, TriggerDefinition.webhook("kv", URI.create(receiver.url(path))), Call.plain())
                .id().toString();
    }

    /** Publishes {@code n} events to {@code owner}; the ids of the rows written for {@code trigger}. */
    private List<String> publish(UUID owner, int n, String trigger) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            client.publish(owner, Event.of("kv", Json.createObjectBuilder().add("i", i).build())).stream()
                    .filter(row -> row.triggerId().toString().equals(trigger))
                    .forEach(row -> ids.add(row.id().toString()));
        }
        assertEquals(n, ids.size());
        return ids;
    }

    private JsonObject row(String id) {
        return client.status(UUID.fromString(id)).json();
    }

    private Set<String> payloads(String path) {
        // as stored: jsonb writes a space after the colon
        return receiver.at(path).stream().map(r -> r.body().replace(" ", "")).collect(Collectors.toSet());
    }

    private static Set<String> expected(int n) {
        return IntStream.range(0, n).mapToObj(i -> "{\"i\":" + i + "}").collect(Collectors.toSet());
    }

    private List<String> actions(String target) {
        return admin.audit(null, target, null, null).getJsonArray("items").getValuesAs(JsonObject.class)
                .stream().map(e -> e.getString("action")).toList();
    }

    private boolean listedOnHold(UUID owner) {
        return admin.holds().getJsonArray("apps").getValuesAs(JsonObject.class).stream()
                .anyMatch(h -> h.getString("appId").equals(owner.toString()));
    }

    private long parked(String trigger) {
        return ItDatabase
                .count("SELECT count(*) FROM outbox WHERE trigger_id = ?::uuid AND next_attempt_at = 'infinity'"
                        + " AND held_due_at IS NOT NULL", trigger);
    }

    @Test
    void aHeldTriggersRowsWaitWhileItsSiblingDeliversAndAllComeOnRelease() {
        String held = webhook(app, "/held");
        webhook(app, "/free");
        assertTrue(client.holdTrigger(app, UUID.fromString(held)).held());
        assertTrue(client.trigger(app, UUID.fromString(held)).held());

        List<String> ids = publish(app, ROWS, held);
        Eventually.until(WAIT, () -> receiver.at("/free").size() == ROWS,
                () -> receiver.at("/free").size() + " at /free");
        // the dispatcher's tick parks them out of the due order
        Eventually.until(WAIT, () -> parked(held) == ROWS, () -> parked(held) + " parked");
        assertEquals(0, receiver.at("/held").size(), "a held trigger's row was delivered");
        for (String id : ids) {
            JsonObject row = row(id);
            assertEquals("held", row.getString("status"), row.toString());
            assertEquals(0, row.getInt("attemptCount"), "a held row spent an attempt: " + row);
            assertFalse(row.isNull("nextAttemptAt") || row.getString("nextAttemptAt").startsWith("+"), row.toString());
        }
        // the console's totals count them (measured at most a few seconds apart; other tests' rows may be held too)
        Eventually.until(WAIT, () -> client.stats().getJsonNumber("held").longValue() >= ROWS,
                () -> client.stats().toString());

        // by hand: with the empty object the API also takes as no body
        Api.Reply again = api.post(ADMIN, "apps/" + app + "/triggers/" + held + "/hold", "{}");
        assertEquals(200, again.status(), "a hold of a held trigger answers as it stands: " + again);
        assertFalse(client.releaseTrigger(app, UUID.fromString(held)).held());

        Eventually.until(WAIT, () -> receiver.at("/held").size() >= ROWS,
                () -> receiver.at("/held").size() + " at /held");
        assertEquals(expected(ROWS), payloads("/held"), "every held row, once");
        assertEquals(ROWS, receiver.at("/held").size(), "no row twice");
        for (String id : ids) {
            Eventually.until(WAIT, () -> row(id).getString("status").equals("delivered"), () -> row(id).toString());
            assertEquals(1, row(id).getInt("attemptCount"), row(id).toString());
        }
        assertEquals(List.of("trigger.release", "trigger.hold", "trigger.hold", "trigger.create"), actions(held));
    }

    @Test
    void anAppOnHoldWaitsWhileAnotherAppDeliversAndItsInvokeIsRefused() {
        UUID other = UUID.randomUUID();
        String heldTrigger = webhook(app, "/app-held");
        webhook(other, "/app-free");
        JsonObject hold = client.holdApp(app);
        assertTrue(hold.getBoolean("held"), hold.toString());
        assertEquals(ADMIN, hold.getString("heldBy"));
        assertTrue(listedOnHold(app), "GET /admin/holds lists the app");

        List<String> ids = publish(app, ROWS, heldTrigger);
        publish(other, ROWS, webhookId(other));
        Eventually.until(WAIT, () -> receiver.at("/app-free").size() == ROWS,
                () -> receiver.at("/app-free").size() + " at /app-free");
        assertEquals(0, receiver.at("/app-held").size(), "a held app's row was delivered");
        assertEquals("held", row(ids.get(0)).getString("status"));

        assertRefused(409, "held",
                () -> client.invoke(app, UUID.fromString(heldTrigger), Json.createValue(1), Duration.ofSeconds(1),
                        Call.plain()));

        assertTrue(client.holdApp(app).getBoolean("held"), "a second hold changes nothing");
        assertFalse(client.releaseApp(app).getBoolean("held"));
        Eventually.until(WAIT, () -> receiver.at("/app-held").size() >= ROWS,
                () -> receiver.at("/app-held").size() + " at /app-held");
        assertEquals(expected(ROWS), payloads("/app-held"));
        assertEquals(ROWS, receiver.at("/app-held").size(), "no row twice");
        assertEquals(List.of("app.release", "app.hold"), actions(app.toString()), "one hold, one release");
        assertEquals(0, client.releaseApp(app).getInt("releasedRows"),
                "a release of an app not on hold puts nothing back");
    }

    private String webhookId(UUID owner) {
        return client.triggers(owner).get(0).id().toString();
    }

    @Test
    void disablingATriggerHoldsItsRowsInsteadOfDeadLetteringThemAndEnablingDeliversThem() {
        String trigger = webhook(app, "/disabled");
        webhook(app, "/enabled");
        UUID id = UUID.fromString(trigger);
        TriggerDefinition definition = TriggerDefinition.webhook("kv", URI.create(receiver.url("/disabled")));
        // rows waiting when the trigger is disabled: written while it is held, then the hold goes and the disable stays
        assertTrue(client.holdTrigger(app, id).held());
        List<String> ids = publish(app, ROWS, trigger);
        assertFalse(client.replaceTrigger(app, id, definition.enabled(false)).enabled());
        assertFalse(client.releaseTrigger(app, id).held());
        Eventually.until(WAIT, () -> receiver.at("/enabled").size() == ROWS,
                () -> receiver.at("/enabled").size() + " at /enabled");
        Eventually.until(WAIT, () -> parked(trigger) == ROWS, () -> parked(trigger) + " parked");
        assertEquals(0, ItDatabase.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app),
                "rows of a disabled trigger dead-lettered");
        assertEquals(0, receiver.at("/disabled").size());
        assertEquals("held", row(ids.get(0)).getString("status"));

        assertTrue(client.replaceTrigger(app, id, definition.enabled(true)).enabled());
        Eventually.until(WAIT, () -> receiver.at("/disabled").size() >= ROWS,
                () -> receiver.at("/disabled").size() + " at /disabled");
        assertEquals(expected(ROWS), payloads("/disabled"));
        assertEquals(0, parked(trigger));
    }

    @Test
    void aHeldRowCanBeCancelledAndBadHoldsAreRefusedWithoutAChange() {
        String trigger = webhook(app, "/cancelled");
        assertTrue(client.holdTrigger(app, UUID.fromString(trigger)).held());
        List<String> ids = publish(app, 3, trigger);
        // "discard pending": the bulk cancel of the trigger's rows
        JsonObject discard = admin.cancelAll(Json.createObjectBuilder().add("triggerId", trigger).build());
        assertEquals(3, discard.getInt("cancelled"), discard.toString());
        assertEquals("cancelled", row(ids.get(0)).getString("status"));

        assertRefused(404, "not-found", () -> client.holdTrigger(app, UUID.randomUUID()));
        // by hand: a body, a producer, an id that is no UUID, a method the path does not take
        Api.Reply withBody = api.post(ADMIN, "apps/" + app + "/triggers/" + trigger + "/release", "{\"now\":true}");
        assertEquals(400, withBody.status(), withBody.toString());
        assertTrue(withBody.isProblem(), withBody.toString());
        Api.Reply notAdmin = api.post(PRODUCER_A, "admin/apps/" + app + "/hold", null);
        assertEquals(403, notAdmin.status(), notAdmin.toString());
        Api.Reply badApp = api.post(ADMIN, "admin/apps/not-a-uuid/hold", null);
        assertEquals(404, badApp.status(), "as every path id that is no UUID: " + badApp);
        assertTrue(badApp.isProblem(), badApp.toString());
        Api.Reply get = api.get(ADMIN, "admin/apps/" + app + "/hold");
        assertEquals(405, get.status(), get.toString());

        assertTrue(client.trigger(app, UUID.fromString(trigger)).held(), "the refused release changed it");
        assertFalse(listedOnHold(app), "a refused hold held the app");
        assertEquals(List.of("trigger.hold", "trigger.create"), actions(trigger));
    }
}
