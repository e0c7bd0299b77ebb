package dev.triggeroutbox.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.triggeroutbox.client.OutboxApi;
import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.ProblemException;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.util.UUID;
import org.eclipse.microprofile.rest.client.RestClientBuilder;
import org.junit.jupiter.api.function.Executable;

/**
 * The typed clients of client/ signed in as a test account of {@link ItUsers}: the black-box tests make their
 * well-formed calls through them, as a user's code would, and keep raw requests for what the client cannot send.
 */
public final class ItClients {

    private ItClients() {
    }

    /** The REST API's base under the deployment's URL, e.g. http://127.0.0.1:8080/outbox/api/v1/. */
    public static URI api(URL deployment) {
        return URI.create(deployment.toString()).resolve("api/v1/");
    }

    public static OutboxClient client(URL deployment, String user) {
        return OutboxClient.connect(api(deployment), user, ItUsers.PASSWORD);
    }

    /** The MicroProfile Rest Client interface, for the admin calls whose answers a test reads as JSON. */
    public static OutboxApi restClient(URL deployment, String user) {
        return RestClientBuilder.newBuilder().baseUri(api(deployment))
                .register(new OutboxApi.BasicAuth(user, ItUsers.PASSWORD))
                .build(OutboxApi.class);
    }

    /** Closes a client of {@link #restClient} (every MicroProfile Rest Client is {@link Closeable}). */
    public static void close(OutboxApi api) {
        try {
            ((Closeable) api).close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where a row stands, or {@code HTTP <status>} while the call is refused: a test waiting for a status waits on. */
    public static String status(OutboxClient caller, UUID row) {
        try {
            return caller.status(row).status();
        } catch (ProblemException refused) {
            return "HTTP " + refused.status();
        }
    }

    /**
     * Asserts that the call is refused with a problem of this status and type (the type read from the API's own
     * problem document: an answer that is none would be {@code http-<status>}); the refusal, for more checks.
     */
    public static ProblemException assertRefused(int status, String type, Executable call) {
        ProblemException refused = assertThrows(ProblemException.class, call);
        assertEquals(status, refused.status(), refused.getMessage());
        assertEquals(type, refused.type(), refused.getMessage());
        return refused;
    }
}
