package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.targets.entity.DeliveryResult;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookRepliesTest {

    private static final Instant NOW = Instant.parse("2024-01-01T00:00:00Z");

    private static DeliveryResult reply(int status, String body) {
        return WebhookReplies.result(status, body, null, null, NOW);
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 202, 204, 299})
    void twoHundredsAreDelivered(int status) {
        DeliveryResult r = reply(status, "{\"ok\":true}");
        assertEquals(new DeliveryResult.Delivered("{\"ok\":true}", status), r);
    }

    @Test
    void anEmptyBodyIsNoReply() {
        assertEquals(new DeliveryResult.Delivered(null, 204), reply(204, ""));
        assertEquals(new DeliveryResult.Delivered(null, 200), reply(200, null));
    }

    @Test
    void goneRejectsAndDisablesTheTrigger() {
        DeliveryResult.Rejected r = assertInstanceOf(DeliveryResult.Rejected.class, reply(410, "bye"));
        assertTrue(r.disableTrigger());
        assertTrue(r.error().contains("410") && r.error().contains("bye"), r.error());
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 405, 409, 413, 415, 422, 451, 499})
    void otherClientErrorsArePermanentButKeepTheTrigger(int status) {
        DeliveryResult.Rejected r = assertInstanceOf(DeliveryResult.Rejected.class, reply(status, "no such thing"));
        assertFalse(r.disableTrigger());
        assertTrue(r.error().contains(Integer.toString(status)), r.error());
        assertTrue(r.error().contains("no such thing"), r.error());
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 425, 429, 500, 502, 503, 504, 599})
    void transientAnswersRetryHonouringRetryAfter(int status) {
        DeliveryResult r = WebhookReplies.result(status, "busy", null, "30", NOW);
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class, r);
        assertEquals(Duration.ofSeconds(30), f.retryAfter());
        assertTrue(f.error().contains(Integer.toString(status)), f.error());
    }

    @Test
    void retryAfterMayBeAnHttpDateOrBeUnreadable() {
        DeliveryResult.Failed dated = assertInstanceOf(DeliveryResult.Failed.class,
                WebhookReplies.result(503, null, null, "Mon, 01 Jan 2024 00:02:00 GMT", NOW));
        assertEquals(Duration.ofMinutes(2), dated.retryAfter());
        DeliveryResult.Failed garbage = assertInstanceOf(DeliveryResult.Failed.class,
                WebhookReplies.result(429, null, null, "later please", NOW));
        assertNull(garbage.retryAfter());
        DeliveryResult.Failed none = assertInstanceOf(DeliveryResult.Failed.class, reply(500, null));
        assertNull(none.retryAfter());
    }

    @ParameterizedTest
    @ValueSource(ints = {300, 301, 302, 303, 307, 308})
    void redirectsAreNeverFollowed(int status) {
        DeliveryResult r = WebhookReplies.result(status, null, "http://169.254.169.254/latest", "5", NOW);
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class, r);
        assertTrue(f.error().contains("redirect to http://169.254.169.254/latest not followed"), f.error());
        assertTrue(f.error().contains(Integer.toString(status)), f.error());
        assertNull(f.retryAfter());
    }

    @Test
    void aRedirectWithoutLocationSaysSo() {
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class, reply(304, null));
        assertTrue(f.error().contains("without a Location"), f.error());
    }

    @ParameterizedTest
    @ValueSource(ints = {101, 199, 600, 999})
    void unexpectedStatusesRetry(int status) {
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class, reply(status, null));
        assertTrue(f.error().contains(Integer.toString(status)), f.error());
    }

    @Test
    void errorsCarryOnlyAShortOneLineSnippetOfTheBody() {
        String body = "line one\r\nline two\t" + "x".repeat(10_000);
        DeliveryResult.Failed f = assertInstanceOf(DeliveryResult.Failed.class, reply(500, body));
        assertTrue(f.error().startsWith("webhook answered HTTP 500: line one line two xxx"), f.error());
        assertTrue(f.error().length() <= "webhook answered HTTP 500: ".length() + WebhookReplies.SNIPPET_CHARS + 1,
                "error is " + f.error().length() + " chars");
        assertFalse(f.error().contains("\n"));
    }

    @Test
    void failuresBeforeAnAnswerAreShortSentences() {
        Duration timeout = Duration.ofMillis(10_000);
        Duration connect = Duration.ofMillis(5_000);
        assertEquals("could not connect to hooks.example within 5000 ms", WebhookFailures.describe(
                new SocketTimeoutException("Connect Timeout"), "hooks.example", timeout, connect));
        assertEquals("webhook at hooks.example did not answer within 10000 ms", WebhookFailures.describe(
                new CompletionException(new TimeoutException("Total timeout 10000 ms elapsed")), "hooks.example",
                timeout, connect));
        assertEquals("could not connect to hooks.example: Connection refused", WebhookFailures.describe(
                new CompletionException(new ConnectException("Connection refused")), "hooks.example", timeout,
                connect));
        assertEquals("webhook request to hooks.example failed: connection reset", WebhookFailures.describe(
                new IOException("connection reset"), "hooks.example", timeout, connect));
        assertEquals("webhook request to hooks.example failed: IllegalStateException: boom", WebhookFailures.describe(
                new IllegalStateException("boom"), "hooks.example", timeout, connect));
    }
}
