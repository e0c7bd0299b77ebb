package dev.triggeroutbox.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.RawRequests;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Requests a generated-input checker sends, written byte by byte on a socket: headers the JAX-RS runtime
 * trips over, bodies that are not exactly one UTF-8 JSON value, NUL characters in the address, credentials
 * that are not base64. Each answer is a problem (never a 5xx, never HTML) and writes nothing.
 */
@ExtendWith(ArquillianExtension.class)
class MalformedRequestsIT {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    private final UUID app = UUID.randomUUID();

    /** An answer as it came: its status, its headers (names lower-cased) and its body. */
    private record Answer(int status, Map<String, String> headers, String body) {
        boolean isProblem() {
            return headers.getOrDefault("content-type", "").startsWith("application/problem+json")
                    && body.contains("\"status\":" + status);
        }

        @Override
        public String toString() {
            return status + " " + headers.get("content-type") + " " + body;
        }
    }

    /** A request as an admin, unless {@code headers} sets Authorization itself. */
    private Answer send(String method, String path, Map<String, String> headers, byte[] body) throws IOException {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("X-Requested-By", "test");
        all.putAll(headers);
        String answer = RawRequests.send(base, method, path, all, body);
        int end = answer.indexOf("\r\n\r\n");
        String[] lines = answer.substring(0, end).split("\r\n");
        Map<String, String> answerHeaders = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            answerHeaders.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).strip());
        }
        String rest = answer.substring(end + 4);
        return new Answer(Integer.parseInt(lines[0].split(" ")[1]), answerHeaders,
                "chunked".equalsIgnoreCase(answerHeaders.get("transfer-encoding")) ? unchunk(rest) : rest);
    }

    private static String unchunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (true) {
            int line = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, line).strip(), 16);
            if (size == 0) {
                return body.toString();
            }
            body.append(chunked, line + 2, line + 2 + size);
            at = line + 2 + size + 2;
        }
    }

    private Answer send(String method, String path, Map<String, String> headers) throws IOException {
        return send(method, path, headers, new byte[0]);
    }

    private Answer publish(String contentType, byte[] body) throws IOException {
        return send("POST", "apps/" + app + "/events", Map.of("Content-Type", contentType), body);
    }

    /** The app's rows anywhere, and its one trigger. */
    private long everythingOfTheApp() {
        return ItDatabase.everythingOf(app);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void aBodyThatIsNotExactlyOneUtf8JsonValueIsRefusedAndWritesNothing() throws IOException {
        Answer trigger = send("POST", "apps/" + app + "/triggers", Map.of("Content-Type", "application/json"),
                utf8("{\"sourceKind\":\"kv\",\"target\":{\"type\":\"webhook\",\"url\":\"http://127.0.0.1:9/never\"}}"));
        assertEquals(201, trigger.status(), trigger.toString());
        // due tomorrow: a row delivered (or dead-lettered: nothing listens on port 9) during the test would change the count
        String event = "{\"sourceKind\":\"kv\",\"payload\":{\"v\":\"a\"},\"deliverAt\":\""
                + OffsetDateTime.now(ZoneOffset.UTC).plusDays(1) + "\"}";
        Answer written = publish("application/json", utf8(event));
        assertEquals(202, written.status(), written.toString());
        assertEquals(2, everythingOfTheApp());

        Map<String, Answer> refused = new LinkedHashMap<>();
        refused.put("trailing garbage", publish("application/json", utf8(event + "xyz [[[")));
        refused.put("two values", publish("application/json", utf8(event + "{}")));
        refused.put("bytes that are not UTF-8", publish("application/json",
                concat(utf8("{\"sourceKind\":\"kv\",\"payload\":{\"v\":\"a"),
                        new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xc0, (byte) 0xaf}, utf8("\"}}"))));
        refused.put("an encoded surrogate", publish("application/json",
                concat(utf8("{\"sourceKind\":\"kv\",\"payload\":{\"v\":\""),
                        new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, utf8("\"}}"))));
        refused.put("latin-1 declared", publish("application/json; charset=ISO-8859-1", utf8(event)));
        refused.put("a charset that does not exist", publish("application/json; charset=bogus", utf8(event)));
        refused.put("an empty charset", publish("application/json; charset=", utf8(event)));
        refused.put("no body", publish("application/json", new byte[0]));
        refused.forEach((what, answer) -> {
            assertTrue(answer.status() == 400 || answer.status() == 415, what + " -> " + answer);
            assertTrue(answer.isProblem(), what + " -> " + answer);
        });
        assertTrue(refused.get("bytes that are not UTF-8").body().contains("not-utf-8"),
                refused.get("bytes that are not UTF-8").toString());
        assertEquals(2, everythingOfTheApp(), "a refused request writes nothing");

        // a byte order mark may lead (RFC 8259 lets a reader ignore it), and UTF-8 may be said
        Answer marked = publish("application/json; charset=UTF-8",
                concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, utf8(event)));
        assertEquals(202, marked.status(), marked.toString());
        assertEquals(3, everythingOfTheApp());
        Answer quoted = publish("application/json; charset=\"utf-8\"", utf8(event));
        assertEquals(202, quoted.status(), quoted.toString());
    }

    @Test
    void headersTheRuntimeCannotReadAreProblemsNotServerErrors() throws IOException {
        Map<String, Map<String, String>> malformed = new LinkedHashMap<>();
        malformed.put("a q-value that is not a number", Map.of("Accept", "*/*;q=abc"));
        malformed.put("an Accept that is no media type", Map.of("Accept", "garbage"));
        malformed.put("a Content-Type that is no media type", Map.of("Content-Type", "garbage"));
        malformed.put("an empty Content-Type", Map.of("Content-Type", ""));
        for (String path : new String[] {"health", "admin/stats", "apps/" + app + "/events"}) {
            for (var entry : malformed.entrySet()) {
                Answer a = send(path.endsWith("events") ? "POST" : "GET", path, entry.getValue(),
                        path.endsWith("events") ? utf8("{}") : new byte[0]);
                assertEquals(400, a.status(), entry.getKey() + " on " + path + " -> " + a);
                assertTrue(a.isProblem(), entry.getKey() + " on " + path + " -> " + a);
            }
        }
        // what the JDK's HttpURLConnection sends is read as leniently as before
        Answer jdk = send("GET", "health", Map.of("Accept", "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2"));
        assertEquals(200, jdk.status(), jdk.toString());
    }

    /** On an open path the server may also ignore credentials it cannot read (Payara does); never a 5xx. */
    @Test
    void credentialsThatAreNotBase64AreUnauthorizedWithAChallenge() throws IOException {
        for (String credentials : new String[] {"Basic !!!!", "Basic YWRtaW46QWRtaW4tcGFzcy0x==="}) {
            for (String path : new String[] {"health", "admin/stats"}) {
                Answer a = send("GET", path, Map.of("Authorization", credentials));
                if (path.equals("health") && a.status() == 200) {
                    continue;
                }
                assertEquals(401, a.status(), credentials + " on " + path + " -> " + a);
                assertTrue(a.isProblem(), credentials + " on " + path + " -> " + a);
                assertTrue(a.headers().getOrDefault("www-authenticate", "").startsWith("Basic"),
                        a.headers().toString());
            }
        }
    }

    @Test
    void aNulCharacterInTheAddressIsRefused() throws IOException {
        for (String path : new String[] {"admin/audit?action=%00", "admin/dead-letters?error=a%00b",
                "admin/triggers?sourceKind=%00"}) {
            Answer a = send("GET", path, Map.of());
            assertEquals(400, a.status(), path + " -> " + a);
            assertTrue(a.isProblem() && a.body().contains("nul-character"), path + " -> " + a);
        }
    }

    /** WildFly hands such a path to the WAR, which answers a problem; Payara's Grizzly refuses it itself with an empty 400. */
    @Test
    void aPathThatIsNotUtf8IsAProblem() throws IOException {
        for (String path : new String[] {"outbox/%ED%A0%80", "admin/rows/%FF%FE"}) {
            Answer a = send("GET", path, Map.of());
            assertTrue(a.status() == 400 || a.status() == 404, path + " -> " + a);
            boolean refusedByTheServerItself = a.status() == 400 && a.body().isEmpty()
                    && !a.headers().containsKey("content-type");
            assertTrue(a.isProblem() || refusedByTheServerItself, path + " -> " + a);
        }
    }

    @Test
    void theBulkReplayAnswersOnlyPost() throws IOException {
        for (String method : new String[] {"GET", "DELETE"}) {
            Answer a = send(method, "admin/dead-letters/replay", Map.of());
            assertEquals(405, a.status(), method + " -> " + a);
            assertTrue(a.isProblem(), method + " -> " + a);
            assertTrue(a.headers().getOrDefault("allow", "").contains("POST"), a.headers().toString());
        }
    }
}
