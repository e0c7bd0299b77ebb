package dev.triggeroutbox.email;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.APP_B;
import static dev.triggeroutbox.testkit.ItUsers.NOBODY;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.email.control.SampleMails;
import dev.triggeroutbox.testkit.Api;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.ItUsers;
import dev.triggeroutbox.testkit.Receiver;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
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
 * The {@code email} source as a mail gateway uses it: raw RFC 822 and JSON POSTed by a producer,
 * each arriving once at a webhook receiver (a real HTTP server on loopback) with the mail's fields and
 * only the metadata of its attachments; broken, oversize and other apps' mail refused, changing nothing. The mail is
 * POSTed by hand, as a gateway sends it (its media type and body are the point); the trigger and the row's status go
 * through the typed client.
 */
@ExtendWith(ArquillianExtension.class)
class EmailIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private Api api;
    private OutboxClient admin;
    private OutboxClient producer;
    private Receiver receiver;
    private String path;
    private UUID trigger;

    @BeforeEach
    void start() throws Exception {
        api = new Api(base);
        admin = ItClients.client(base, ADMIN);
        producer = ItClients.client(base, PRODUCER_A);
        receiver = new Receiver();
        path = "/mail-" + UUID.randomUUID();
        receiver.script(path, n -> Receiver.Answer.of(204));
        trigger = admin.createTrigger(APP_A,
                TriggerDefinition.webhook("email", URI.create(receiver.url(path))).maxAttempts(10),
                Call.plain()).id();
    }

    @AfterEach
    void stop() {
        try {
            admin.deleteTrigger(APP_A, trigger);
        } finally {
            receiver.close();
            producer.close();
            admin.close();
            api.close();
        }
    }

    /** Posts, expects 202 with a row for this test's trigger, waits for the one webhook call and returns its body. */
    private JsonObject deliveredOnce(Api.Reply r) {
        assertEquals(202, r.status(), r.toString());
        String row = r.object().getJsonArray("rows").getValuesAs(JsonObject.class).stream()
                .filter(o -> o.getString("triggerId").equals(trigger.toString())).findFirst().orElseThrow()
                .getString("id");
        Eventually.until(WAIT, () -> "delivered".equals(producer.status(UUID.fromString(row)).status()),
                () -> producer.status(UUID.fromString(row)).json().toString());
        // one row; a busy machine may see an attempt time out and come again, always as the same row
        List<Receiver.Request> got = receiver.at(path);
        assertFalse(got.isEmpty());
        for (Receiver.Request request : got) {
            assertEquals(row, request.header("webhook-id"), got.toString());
            assertEquals("email", request.header("outbox-source-kind"));
        }
        return Json.createReader(new StringReader(got.get(0).body())).readObject();
    }

    /**
     * Sends only the head of a POST whose Content-Length announces {@code length} bytes, and returns
     * the raw answer: the server must refuse by the announced size, without waiting for the body.
     */
    private String announceOnly(String path, long length) throws IOException {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout((int) WAIT.toMillis());
            String credentials = Base64.getEncoder()
                    .encodeToString((PRODUCER_A + ":" + ItUsers.PASSWORD).getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().write(("POST " + base.getPath() + "api/v1/" + path + " HTTP/1.1\r\n"
                    + "Host: " + base.getHost() + ":" + base.getPort() + "\r\n"
                    + "Authorization: Basic " + credentials + "\r\n"
                    + "Content-Type: message/rfc822\r\nContent-Length: " + length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[4096];
            for (int n; !answer.toString(StandardCharsets.UTF_8).contains("}") && (n = in.read(buf)) >= 0;) {
                answer.write(buf, 0, n);
            }
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    private long emailRows() {
        return ItDatabase.count("""
                SELECT (SELECT count(*) FROM outbox WHERE app_id = ? AND source_kind = 'email')
                     + (SELECT count(*) FROM delivery_history WHERE app_id = ? AND source_kind = 'email')
                     + (SELECT count(*) FROM dead_letters WHERE app_id = ? AND source_kind = 'email')""", APP_A, APP_A,
                APP_A);
    }

    @Test
    void aRawMultipartMailArrivesWithItsFieldsAndOnlyTheMetadataOfItsAttachment() {
        JsonObject mail = deliveredOnce(
                api.post(PRODUCER_A, "apps/" + APP_A + "/email", "message/rfc822", SampleMails.MULTIPART, Map.of()));
        assertEquals("\"Jürgen\" <juergen@example.com>", mail.getString("from"));
        assertEquals(List.of("Orders <orders@shop.example>", "support@shop.example"),
                mail.getJsonArray("to").getValuesAs(jakarta.json.JsonString::getString));
        assertEquals("boss@example.com", mail.getJsonArray("cc").getString(0));
        assertEquals("Bestellung ü", mail.getString("subject"));
        assertEquals("2026-02-03T09:15:30Z", mail.getString("date"));
        assertEquals("<order-42@example.com>", mail.getString("messageId"));
        assertEquals("Grüße, order 42", mail.getString("text").strip());
        assertEquals("<p>order 42</p>", mail.getString("html").strip());
        JsonObject attachment = mail.getJsonArray("attachments").getJsonObject(0);
        assertEquals(1, mail.getJsonArray("attachments").size());
        assertEquals("invoice.pdf", attachment.getString("filename"));
        assertEquals("application/pdf", attachment.getString("contentType"));
        assertEquals(54, attachment.getInt("size"));
        assertFalse(receiver.at(path).get(0).body().contains(SampleMails.PDF_BASE64.substring(0, 20)),
                "the attachment's content is not kept");
    }

    @Test
    void aJsonMailArrivesTheSameWay() {
        JsonObject mail = deliveredOnce(api.post(PRODUCER_A, "apps/" + APP_A + "/email", """
                {"from":"Alice <alice@example.com>","to":["orders@shop.example"],"cc":[],"subject":"Order 7",
                 "text":"please send 7","html":"<b>7</b>",
                 "attachments":[{"filename":"list.csv","contentType":"text/csv","size":120}]}"""));
        assertEquals("Alice <alice@example.com>", mail.getString("from"));
        assertEquals("orders@shop.example", mail.getJsonArray("to").getString(0));
        assertTrue(mail.getJsonArray("cc").isEmpty());
        assertEquals("Order 7", mail.getString("subject"));
        assertEquals("please send 7", mail.getString("text"));
        assertEquals("<b>7</b>", mail.getString("html"));
        assertEquals(
                Json.createObjectBuilder().add("filename", "list.csv").add("contentType", "text/csv").add("size", 120)
                        .build(),
                mail.getJsonArray("attachments").getJsonObject(0));
    }

    @Test
    void brokenOversizeAndForeignMailIsRefusedAndChangesNothing() throws IOException {
        long before = emailRows();
        String email = "apps/" + APP_A + "/email";
        // no From, not MIME; a multipart whose boundary never comes; a multipart never closed
        for (String broken : List.of("this is not a mail",
                "From: a@example.com\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\nno parts\r\n",
                "From: a@example.com\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n")) {
            Api.Reply r = api.post(PRODUCER_A, email, "message/rfc822", broken, Map.of());
            assertEquals(400, r.status(), r.toString());
            assertTrue(r.isProblem() && r.object().getString("type").endsWith(":email-malformed"), r.toString());
        }
        Api.Reply badJson = api.post(PRODUCER_A, email, """
                {"from":"not an address","to":"x@example.com","attachments":[{"filename":"a"}],"bcc":[]}""");
        assertEquals(400, badJson.status(), badJson.toString());
        assertEquals(List.of("attachments[0].contentType", "attachments[0].size", "bcc", "from", "to"),
                badJson.object().getJsonArray("errors").getValuesAs(JsonObject.class).stream()
                        .map(e -> e.getString("field")).sorted().toList(),
                badJson.toString());
        // the body limit (outbox.email.max-bytes, 8 MiB) and the payload limit of the event made from it
        String huge = announceOnly(email, 8 * 1024 * 1024 + 1);
        assertTrue(huge.startsWith("HTTP/1.1 413"), huge);
        assertTrue(huge.contains("application/problem+json") && huge.contains("outbox.email.max-bytes"), huge);
        Api.Reply longText = api.post(PRODUCER_A, email, "message/rfc822",
                "From: a@example.com\r\n\r\n" + "y".repeat(300 * 1024), Map.of());
        assertEquals(413, longText.status(), longText.toString());
        assertTrue(longText.isProblem(), longText.toString());
        // another app's endpoint does not exist for this producer; no role, no mail
        assertEquals(404,
                api.post(PRODUCER_A, "apps/" + APP_B + "/email", "message/rfc822", SampleMails.MULTIPART, Map.of())
                        .status());
        assertEquals(403, api.post(NOBODY, email, "message/rfc822", SampleMails.MULTIPART, Map.of()).status());
        assertEquals(401, api.post(null, email, "message/rfc822", SampleMails.MULTIPART, Map.of()).status());
        Api.Reply text = api.post(PRODUCER_A, email, "text/plain", "hello", Map.of());
        assertEquals(415, text.status(), text.toString());
        assertTrue(text.isProblem(), text.toString());

        assertEquals(before, emailRows());
        assertTrue(receiver.at(path).isEmpty());
    }

    @Test
    void anIdempotencyKeyMakesARetriedMailOneEvent() {
        Map<String, String> key = Map.of("Idempotency-Key", "mail-" + UUID.randomUUID());
        Api.Reply first = api.post(PRODUCER_A, "apps/" + APP_A + "/email", "message/rfc822", SampleMails.MULTIPART,
                key);
        Api.Reply again = api.post(PRODUCER_A, "apps/" + APP_A + "/email", "message/rfc822", SampleMails.MULTIPART,
                key);
        assertEquals(first.body(), again.body());
        deliveredOnce(first);
    }
}
