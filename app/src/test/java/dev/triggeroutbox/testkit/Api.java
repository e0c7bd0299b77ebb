package dev.triggeroutbox.testkit;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.Response;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * A JAX-RS client for the black-box tests: signs in as a test user (or nobody), sends JSON text as
 * it is (so tests can send malformed bodies), and returns status, headers and the parsed body.
 */
public final class Api implements AutoCloseable {

    /** One answer. {@code json} is null when the body is empty or not JSON. */
    public record Reply(int status, String contentType, String location, String body, JsonValue json) {
        public JsonObject object() {
            return json.asJsonObject();
        }

        public boolean isProblem() {
            return contentType != null && contentType.startsWith("application/problem+json")
                    && json != null && json.asJsonObject().getInt("status") == status;
        }

        @Override
        public String toString() {
            return status + " " + contentType + " " + body;
        }
    }

    private final Client client = ClientBuilder.newClient();
    private final URI base;

    /** @param deployment the deployment's URL, e.g. http://127.0.0.1:8080/outbox/ */
    public Api(URL deployment) {
        this.base = URI.create(deployment.toString()).resolve("api/v1/");
    }

    public Reply call(String user, String method, String path, String body) {
        return call(user, method, path, body, Map.of());
    }

    public Reply call(String user, String method, String path, String body, Map<String, String> headers) {
        return call(user, method, path, body, "application/json", headers);
    }

    /** A POST of a body of another media type (e.g. message/rfc822). */
    public Reply post(String user, String path, String contentType, String body, Map<String, String> headers) {
        return call(user, "POST", path, body, contentType, headers);
    }

    private Reply call(String user, String method, String path, String body, String contentType,
            Map<String, String> headers) {
        Invocation.Builder request = client.target(base.resolve(path)).request();
        if (user != null) {
            String credentials = user + ":" + ItUsers.PASSWORD;
            request.header("Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        headers.forEach(request::header);
        if (body == null && !method.equals("GET") && !headers.containsKey("X-Requested-By")) {
            // as the API asks of every client for a POST without a JSON body (cross-site request forgery)
            request.header("X-Requested-By", "trigger-outbox-tests");
        }
        try (Response r = body == null
                ? request.method(method)
                : request.method(method, Entity.entity(body, contentType))) {
            String text = r.hasEntity() ? r.readEntity(String.class) : "";
            JsonValue json = null;
            if (!text.isBlank()) {
                try {
                    json = Json.createReader(new StringReader(text)).readValue();
                } catch (RuntimeException notJson) {
                    json = null;
                }
            }
            return new Reply(r.getStatus(), r.getHeaderString("Content-Type"), r.getHeaderString("Location"), text,
                    json);
        }
    }

    public Reply get(String user, String path) {
        return call(user, "GET", path, null);
    }

    public Reply post(String user, String path, String body) {
        return call(user, "POST", path, body);
    }

    @Override
    public void close() {
        client.close();
    }
}
