package dev.triggeroutbox.messaging;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.pubsub.boundary.PubSubConsumers;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItUsers;
import dev.triggeroutbox.testkit.Recorder;
import dev.triggeroutbox.testkit.Sql;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The broker side, on WildFly with standalone-full.xml (embedded ActiveMQ Artemis): a {@code jms}
 * trigger's messages taken off the queue by a consumer in the test, and a topic message becoming
 * exactly one {@code pubsub} event for the app the server maps the topic to
 * ({@code outbox.pubsub.topics} in arquillian.xml). Queue and topic come from a second deployment's
 * {@code *-jms.xml}, deployed after the outbox: its pubsub consumer starts before the topic exists
 * and must find it once it does.
 */
@ExtendWith(ArquillianExtension.class)
class MessagingIT {

    static final String QUEUE = "java:global/jms/outbox-it-queue";
    static final String TOPIC = "java:global/jms/outbox-it-topic";
    /** The app arquillian.xml maps the topic to. */
    static final UUID PUBSUB_APP = UUID.fromString("0c0c0c0c-0000-4000-8000-00000000000c");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(name = "outbox", order = 1)
    static WebArchive outbox() {
        return Deployments.outboxWithTestHandlers().addClasses(Api.class, Api.Reply.class, ItUsers.class);
    }

    @Deployment(name = "destinations", order = 2, testable = false)
    static WebArchive destinations() {
        return ShrinkWrap.create(WebArchive.class, "outbox-it-destinations.war").addAsWebInfResource(new StringAsset("""
                <messaging-deployment xmlns="urn:jboss:messaging-activemq-deployment:1.0">
                  <server>
                    <jms-destinations>
                      <jms-queue name="outbox-it-queue"><entry name="%s"/></jms-queue>
                      <jms-topic name="outbox-it-topic"><entry name="%s"/></jms-topic>
                    </jms-destinations>
                  </server>
                </messaging-deployment>""".formatted(QUEUE, TOPIC)), "outbox-it-jms.xml");
    }

    @ArquillianResource
    @OperateOnDeployment("outbox")
    URL base;

    @Inject
    Recorder recorder;

    @Inject
    PubSubConsumers pubsub;

    private static ConnectionFactory plainFactory() throws Exception {
        return (ConnectionFactory) new InitialContext().lookup("java:/ConnectionFactory");
    }

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    @Test
    @OperateOnDeployment("outbox")
    void aJmsTriggerSendsEachRowOnceAsATextMessageWithItsOrigin() throws Exception {
        try (Api api = new Api(base)) {
            Api.Reply created = api.post(ADMIN, "apps/" + APP_A + "/triggers", """
                    {"sourceKind":"kv","target":{"type":"jms","destination":"%s"}}""".formatted(QUEUE));
            assertEquals(201, created.status(), created.toString());
            String trigger = created.object().getString("id");
            assertEquals(QUEUE, created.object().getJsonObject("target").getString("destination"));

            UUID root = UUID.randomUUID();
            String marker = UUID.randomUUID().toString();
            String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
            Api.Reply published = api
                    .post(PRODUCER_A, "apps/" + APP_A + "/events", "application/json",
                            """
                    {"sourceKind":"kv","payload":{"key":"order","marker":"%s","n":[1,2]},"rootExecutionId":"%s","triggerDepth":1}"""
                                    .formatted(marker, root),
                            Map.of("traceparent", traceparent, "tracestate", "rojo=1"));
            assertEquals(202, published.status(), published.toString());
            String row = published.object().getJsonArray("rows").getValuesAs(JsonObject.class).stream()
                    .filter(r -> r.getString("triggerId").equals(trigger)).findFirst().orElseThrow().getString("id");

            Queue queue = (Queue) new InitialContext().lookup(QUEUE);
            try (JMSContext context = plainFactory().createContext();
                    JMSConsumer consumer = context.createConsumer(queue, "outboxId = '" + row + "'")) {
                Message m = consumer.receive(WAIT.toMillis());
                assertNotNull(m, "no message for row " + row);
                TextMessage text = (TextMessage) m;
                JsonObject body = json(text.getText());
                assertEquals(marker, body.getString("marker"));
                assertEquals(2, body.getJsonArray("n").size());
                assertEquals(APP_A.toString(), m.getStringProperty("outboxAppId"));
                assertEquals("kv", m.getStringProperty("outboxSourceKind"));
                assertEquals(trigger, m.getStringProperty("outboxTriggerId"));
                assertEquals(1, m.getIntProperty("outboxAttempt"));
                assertEquals(root.toString(), m.getStringProperty("outboxRootExecutionId"));
                assertEquals(1, m.getIntProperty("outboxTriggerDepth"));
                // a trace context, under the property names OpenTelemetry's JMS instrumentation reads. Not the test's own:
                // this server traces (opentelemetry subsystem), and its instrumented REST client, which this in-server
                // test calls through, sends a span of its own instead. Exact pass-through: TraceContextIT; spans: SpansIT.
                assertNotNull(TraceContext.parse(m.getStringProperty("traceparent"), null),
                        m.getStringProperty("traceparent"));
                Eventually.until(WAIT,
                        () -> "delivered".equals(api.get(PRODUCER_A, "outbox/" + row).object().getString("status")),
                        () -> api.get(PRODUCER_A, "outbox/" + row).toString());
                assertEquals(1, api.get(PRODUCER_A, "outbox/" + row).object().getInt("attemptCount"));
                // delivered means sent: a second message for the row would already be on the queue
                assertNull(consumer.receiveNoWait(), "a second message for row " + row);

                // request/reply: the answer names the message the broker took
                Api.Reply invoked = api.post(PRODUCER_A,
                        "apps/" + APP_A + "/triggers/" + trigger + "/invoke?timeoutMs=20000",
                        "{\"payload\":{\"invoked\":true}}");
                assertEquals(200, invoked.status(), invoked.toString());
                Message second = consumer.receiveNoWait();
                assertNull(second, "the selector names the first row only");
                String messageId = invoked.object().getString("jmsMessageId");
                try (JMSConsumer byId = context.createConsumer(queue, "JMSMessageID = '" + messageId + "'")) {
                    Message invokedMessage = byId.receive(WAIT.toMillis());
                    assertNotNull(invokedMessage, "no message " + messageId);
                    assertTrue(json(((TextMessage) invokedMessage).getText()).getBoolean("invoked"));
                    assertEquals(QUEUE, invoked.object().getString("destination"));
                }
            }
        }
    }

    @Test
    @OperateOnDeployment("outbox")
    void aJmsTriggerNeedsADestinationBoundOnThisServer() {
        UUID app = UUID.randomUUID();
        try (Api api = new Api(base)) {
            for (String destination : List.of("java:global/jms/no-such-queue", "ldap://127.0.0.1:1389/x",
                    "jms/queue/relative")) {
                Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                        {"sourceKind":"kv","target":{"type":"jms","destination":"%s"}}""".formatted(destination));
                assertEquals(422, r.status(), r.toString());
                assertTrue(r.isProblem(), r.toString());
                assertTrue(r.object().getString("type").endsWith(":jms-destination-unknown"), r.toString());
            }
            assertEquals(0, Sql.count("SELECT count(*) FROM triggers WHERE app_id = ?", app));
        }
    }

    private static final String MESSAGE_TRACE = "00-5af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01";

    @Test
    @OperateOnDeployment("outbox")
    void aTopicMessageBecomesOnePubsubEventForTheMappedApp() throws Exception {
        UUID pubsubTrigger = UUID.randomUUID();
        UUID kvTrigger = UUID.randomUUID();
        Sql.update(
                "INSERT INTO triggers (id, app_id, source_kind, target_type, target) VALUES (?, ?, 'pubsub', 'handler', 'recorder')",
                pubsubTrigger, PUBSUB_APP);
        Sql.update(
                "INSERT INTO triggers (id, app_id, source_kind, target_type, target) VALUES (?, ?, 'kv', 'handler', 'recorder')",
                kvTrigger, PUBSUB_APP);
        // the consumer started before the topic was deployed: it must have found it since
        Eventually.until(WAIT, () -> pubsub.consumingTopics().contains(TOPIC),
                () -> "consuming " + pubsub.consumingTopics());

        String marker = UUID.randomUUID().toString();
        Topic topic = (Topic) new InitialContext().lookup(TOPIC);
        String messageId;
        try (JMSContext context = plainFactory().createContext()) {
            TextMessage json = context.createTextMessage("{\"order\": 7, \"marker\": \"" + marker + "\"}");
            json.setStringProperty("region", "eu");
            json.setIntProperty("priority", 3);
            json.setBooleanProperty("urgent", true);
            json.setStringProperty("traceparent", MESSAGE_TRACE);
            context.createProducer().send(topic, json);
            messageId = json.getJMSMessageID();
            context.createProducer().send(topic, context.createTextMessage("plain words " + marker));
        }

        Eventually.until(WAIT, () -> recorder.ofTrigger(pubsubTrigger).size() >= 2 && countRows(pubsubTrigger) >= 2,
                () -> recorder.ofTrigger(pubsubTrigger) + " / " + countRows(pubsubTrigger) + " rows");
        JsonObject fromJson = null;
        JsonObject fromText = null;
        for (Recorder.Received r : recorder.ofTrigger(pubsubTrigger)) {
            assertEquals("pubsub", r.delivery().sourceKind());
            assertEquals(PUBSUB_APP, r.delivery().appId());
            JsonObject payload = json(r.delivery().payload());
            if (payload.get("body").getValueType() == jakarta.json.JsonValue.ValueType.OBJECT) {
                fromJson = payload;
                // the row is in the message's trace (a child of it: this server makes spans, platform/Tracing)
                assertEquals(MESSAGE_TRACE.substring(3, 35),
                        TraceContext.parse(r.delivery().traceparent(), null).traceId());
            } else {
                fromText = payload;
                // a message without a trace context: its row starts a trace of its own (this server makes spans)
                TraceContext own = TraceContext.parse(r.delivery().traceparent(), null);
                assertNotNull(own, r.delivery().traceparent());
                assertNotEquals(MESSAGE_TRACE.substring(3, 35), own.traceId());
            }
        }
        assertNotNull(fromJson, "the JSON message");
        assertNotNull(fromText, "the text message");
        assertEquals(7, fromJson.getJsonObject("body").getInt("order"));
        assertEquals(marker, fromJson.getJsonObject("body").getString("marker"));
        assertEquals(messageId, fromJson.getString("messageId"));
        assertEquals(TOPIC, fromJson.getString("topic"));
        assertEquals("text", fromJson.getString("bodyType"));
        JsonObject properties = fromJson.getJsonObject("properties");
        assertEquals("eu", properties.getString("region"));
        assertEquals(3, properties.getInt("priority"));
        assertTrue(properties.getBoolean("urgent"));
        assertEquals("plain words " + marker, fromText.getString("body"));
        // one row and one delivery per message for the pubsub trigger, none for the app's other kinds
        assertEquals(2, recorder.ofTrigger(pubsubTrigger).size(), recorder.ofTrigger(pubsubTrigger).toString());
        assertEquals(2, countRows(pubsubTrigger));
        assertEquals(0, countRows(kvTrigger));
    }

    @Test
    @OperateOnDeployment("outbox")
    void aMessageJsonbCannotHoldBecomesTextAndDoesNotHoldUpItsBatch() throws Exception {
        UUID trigger = UUID.randomUUID();
        Sql.update(
                "INSERT INTO triggers (id, app_id, source_kind, target_type, target) VALUES (?, ?, 'pubsub', 'handler', 'recorder')",
                trigger, PUBSUB_APP);
        Eventually.until(WAIT, () -> pubsub.consumingTopics().contains(TOPIC),
                () -> "consuming " + pubsub.consumingTopics());
        String marker = UUID.randomUUID().toString();
        List<String> bodies = List.of("{\"n\": 1e131072, \"marker\": \"" + marker + "\"}",
                "{\"s\": \"\\ud800\", \"marker\": \"" + marker + "\"}",
                "{\"good\": true, \"marker\": \"" + marker + "\"}");
        Topic topic = (Topic) new InitialContext().lookup(TOPIC);
        try (JMSContext context = plainFactory().createContext(JMSContext.SESSION_TRANSACTED)) {
            for (String body : bodies) { // one transaction: the consumer most likely takes them in one batch
                context.createProducer().send(topic, body);
            }
            context.commit();
        }
        // only this test's messages (a broker keeps what an earlier run left in the subscription)
        java.util.function.Supplier<List<Recorder.Received>> mine = () -> recorder.ofTrigger(trigger).stream()
                .filter(r -> r.delivery().payload().contains(marker)).toList();
        Eventually.until(WAIT, () -> mine.get().size() >= 3,
                () -> recorder.ofTrigger(trigger) + " / " + countRows(trigger) + " rows");
        List<String> texts = new ArrayList<>();
        for (Recorder.Received r : mine.get()) {
            JsonObject body = json(r.delivery().payload());
            if (body.get("body").getValueType() == jakarta.json.JsonValue.ValueType.STRING) {
                texts.add(body.getString("body"));
            } else {
                assertTrue(body.getJsonObject("body").getBoolean("good"), body.toString());
            }
        }
        assertEquals(List.of(bodies.get(0), bodies.get(1)), texts.stream().sorted().toList(),
                "the two bodies jsonb cannot hold, as text");
        assertEquals(3, mine.get().size(), "one event per message");
    }

    /** Rows of a trigger wherever they are now (waiting or finished). */
    private static long countRows(UUID trigger) {
        return Sql.count("""
                SELECT (SELECT count(*) FROM outbox WHERE trigger_id = ?)
                     + (SELECT count(*) FROM delivery_history WHERE trigger_id = ?)""", trigger, trigger);
    }
}
