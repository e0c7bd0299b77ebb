package dev.triggeroutbox.rest.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.api.OutboxRefusedException.Reason;
import dev.triggeroutbox.api.OutboxUnavailableException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.resource.ResourceException;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The REST answer of each failure: a refusal's reason is the only thing that picks its status, and the problem
 * document says what the refusal says, as the API has always answered it. A database that cannot be reached (a real
 * PostgreSQL's own exceptions) answers 503 with a time to try again; the database's other errors stay 500.
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
            assertEquals(
                    "{\"type\":\"urn:trigger-outbox:problem:some-type\",\"title\":\"Some title\",\"status\":" + status
                            + ",\"detail\":\"some detail\"}",
                    r.getEntity());
            assertNull(r.getHeaderString("Retry-After"));
        });
    }

    @Test
    void theFactoriesAnswerAsTheApiAlwaysDid() {
        assertEquals("{\"type\":\"urn:trigger-outbox:problem:validation\",\"title\":\"Invalid request\",\"status\":400,"
                + "\"detail\":\"target.url: must be an absolute http or https URL\",\"errors\":[{\"field\":\"target.url\","
                + "\"message\":\"must be an absolute http or https URL\"}]}",
                refused(OutboxRefusedException.invalid("target.url", "must be an absolute http or https URL"))
                        .getEntity());
        assertEquals("{\"type\":\"urn:trigger-outbox:problem:not-found\",\"title\":\"Not found\",\"status\":404,"
                + "\"detail\":\"trigger 1 not found\"}",
                refused(OutboxRefusedException.notFound("trigger 1")).getEntity());
        assertEquals(
                "{\"type\":\"urn:trigger-outbox:problem:payload-too-large\",\"title\":\"Payload too large\",\"status\":413,"
                        + "\"detail\":\"the request body exceeds the limit of 10 bytes (outbox.max-payload-bytes)\"}",
                refused(OutboxRefusedException.tooLarge(10)).getEntity());
        assertEquals(
                "{\"type\":\"urn:trigger-outbox:problem:trigger-disabled\",\"title\":\"Request cannot be processed\","
                        + "\"status\":422,\"detail\":\"trigger 1 is disabled\"}",
                refused(OutboxRefusedException.unprocessable("trigger-disabled", "trigger 1 is disabled")).getEntity());
        Response busy = refused(
                OutboxRefusedException.tooMany("too-many-waiting-invokes", "retry later", Duration.ofSeconds(1)));
        assertEquals(429, busy.getStatus());
        assertEquals("1", busy.getHeaderString("Retry-After"));
        assertEquals(
                "{\"type\":\"urn:trigger-outbox:problem:too-many-waiting-invokes\",\"title\":\"Too many requests\","
                        + "\"status\":429,\"detail\":\"retry later\"}",
                busy.getEntity());
    }

    private static Response failed(Throwable e) {
        return new ProblemMappers.Unexpected().toResponse(e);
    }

    private static void assertUnavailable(Response r) {
        assertEquals(503, r.getStatus(), String.valueOf(r.getEntity()));
        assertEquals("5", r.getHeaderString("Retry-After"));
        assertEquals("application/problem+json", r.getMediaType().toString());
        assertEquals(
                "{\"type\":\"urn:trigger-outbox:problem:unavailable\",\"title\":\"Service unavailable\",\"status\":503,"
                        + "\"detail\":\"the outbox cannot reach its database; try again shortly\"}",
                r.getEntity());
    }

    private static void assertInternal(Response r) {
        assertEquals(500, r.getStatus(), String.valueOf(r.getEntity()));
        assertNull(r.getHeaderString("Retry-After"));
        String body = (String) r.getEntity();
        assertTrue(body.startsWith("{\"type\":\"urn:trigger-outbox:problem:internal\""), body);
        assertTrue(body.contains("quote incident "), body);
        assertFalse(body.contains("duplicate") || body.contains("Exception") || body.contains("23505"), body);
    }

    @Test
    void aDatabaseThatStoppedAnswers503AndItsOwnErrorsStay500() throws Exception {
        SQLException down;
        SQLException duplicate;
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start();
        try (Connection con = postgres.getPostgresDatabase().getConnection(); Statement st = con.createStatement()) {
            st.execute("CREATE TEMPORARY TABLE once (id int PRIMARY KEY)");
            st.execute("INSERT INTO once VALUES (1)");
            duplicate = assertThrows(SQLException.class, () -> st.execute("INSERT INTO once VALUES (1)"));
            postgres.close(); // connections are cut: the next statement finds no server
            down = assertThrows(SQLException.class, () -> st.execute("SELECT 1"));
        } finally {
            postgres.close();
        }
        assertEquals("23505", duplicate.getSQLState());

        assertUnavailable(failed(down));
        assertUnavailable(failed(new IllegalStateException("outbox write failed", down)));
        assertUnavailable(failed(new OutboxUnavailableException("enqueue failed", down)));
        assertInternal(failed(duplicate));
        assertInternal(failed(new OutboxUnavailableException("enqueue failed", duplicate)));
    }

    @Test
    void aPoolThatGivesNoConnectionAnswers503() {
        // WildFly's datasource (IronJacamar) when the database is gone or the pool is exhausted
        SQLException noConnection = new SQLException(
                "jakarta.resource.ResourceException: IJ000453: Unable to get managed "
                        + "connection for java:jboss/datasources/OutboxDS",
                new ResourceException("IJ000453: Unable to get managed connection"));
        assertUnavailable(failed(noConnection));
        assertUnavailable(failed(new SQLException("FATAL: sorry, too many clients already", "53300")));
        assertUnavailable(failed(new OutboxUnavailableException("publish failed", null)));
        assertInternal(failed(new SQLException("not a pool's refusal", new IllegalStateException("x"))));
    }
}
