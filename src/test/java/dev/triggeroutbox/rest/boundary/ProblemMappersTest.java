package dev.triggeroutbox.rest.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.api.OutboxRefusedException.Reason;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The REST answer of each failure: a refusal's reason is the only thing that picks its status, and the problem
 * document says what the refusal says, as the API has always answered it.
 */
class ProblemMappersTest {

    private static Response refused(OutboxRefusedException e) {
        return new ProblemMappers.Refusals().toResponse(e);
    }

    @Test
    void eachReasonAnswersItsStatus() {
        Map<Reason, Integer> expected = new EnumMap<>(Map.of(Reason.INVALID, 400, Reason.NOT_FOUND, 404,
                Reason.CONFLICT, 409, Reason.TOO_LARGE, 413, Reason.UNPROCESSABLE, 422, Reason.TOO_MANY, 429));
        assertEquals(List.of(Reason.values()), List.copyOf(expected.keySet()), "every reason has its status here");
        expected.forEach((reason, status) -> {
            Response r = refused(new OutboxRefusedException(reason, "some-type", "Some title", "some detail"));
            assertEquals(status, r.getStatus(), reason.name());
            assertEquals("application/problem+json", r.getMediaType().toString());
            assertEquals("{\"type\":\"urn:trigger-outbox:problem:some-type\",\"title\":\"Some title\",\"status\":" + status
                    + ",\"detail\":\"some detail\"}", r.getEntity());
            assertNull(r.getHeaderString("Retry-After"));
        });
    }

    @Test
    void theFactoriesAnswerAsTheApiAlwaysDid() {
        assertEquals("{\"type\":\"urn:trigger-outbox:problem:validation\",\"title\":\"Invalid request\",\"status\":400,"
                + "\"detail\":\"target.url: must be an absolute http or https URL\",\"errors\":[{\"field\":\"target.url\","
                + "\"message\":\"must be an absolute http or https URL\"}]}",
                refused(OutboxRefusedException.invalid("target.url", "must be an absolute http or https URL")).getEntity());
        assertEquals("{\"type\":\"urn:trigger-outbox:problem:not-found\",\"title\":\"Not found\",\"status\":404,"
                + "\"detail\":\"trigger 1 not found\"}", refused(OutboxRefusedException.notFound("trigger 1")).getEntity());
        assertEquals("{\"type\":\"urn:trigger-outbox:problem:payload-too-large\",\"title\":\"Payload too large\",\"status\":413,"
                + "\"detail\":\"the request body exceeds the limit of 10 bytes (outbox.max-payload-bytes)\"}",
                refused(OutboxRefusedException.tooLarge(10)).getEntity());
        assertEquals("{\"type\":\"urn:trigger-outbox:problem:trigger-disabled\",\"title\":\"Request cannot be processed\","
                + "\"status\":422,\"detail\":\"trigger 1 is disabled\"}",
                refused(OutboxRefusedException.unprocessable("trigger-disabled", "trigger 1 is disabled")).getEntity());
        Response busy = refused(OutboxRefusedException.tooMany("too-many-waiting-invokes", "retry later", Duration.ofSeconds(1)));
        assertEquals(429, busy.getStatus());
        assertEquals("1", busy.getHeaderString("Retry-After"));
        assertEquals("{\"type\":\"urn:trigger-outbox:problem:too-many-waiting-invokes\",\"title\":\"Too many requests\","
                + "\"status\":429,\"detail\":\"retry later\"}", busy.getEntity());
    }
}
