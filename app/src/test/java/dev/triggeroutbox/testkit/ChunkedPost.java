package dev.triggeroutbox.testkit;

import jakarta.json.Json;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** A POST without Content-Length (chunked), so the server cannot refuse it up front by its size. */
public final class ChunkedPost {

    private ChunkedPost() {
    }

    public static Api.Reply send(URL deployment, String user, String path, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(deployment.toString()).resolve("api/v1/" + path))
                .header("Content-Type", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (user + ":" + ItUsers.PASSWORD).getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes)))
                .build();
        try {
            HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                    .send(request, HttpResponse.BodyHandlers.ofString());
            String type = r.headers().firstValue("Content-Type").orElse(null);
            return new Api.Reply(r.statusCode(), type, r.headers().firstValue("Location").orElse(null), r.body(),
                    r.body().isBlank() ? null : Json.createReader(new StringReader(r.body())).readValue());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
