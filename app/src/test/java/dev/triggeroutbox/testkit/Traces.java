package dev.triggeroutbox.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What a test may expect of the trace context a row carries, on the server it runs on. Payara Micro provides
 * OpenTelemetry, switched on, so there the outbox's spans (platform/Tracing) sit between the producer and the
 * receiver: the receiver sees the producer's trace with the outbox's span as parent, and a row written without a
 * context is delivered in a trace of the outbox's own. WildFly's standalone.xml has no opentelemetry subsystem: the
 * context passes on unchanged and an untraced row stays untraced. SpansIT checks the spans themselves.
 */
public final class Traces {

    /** Whether the server under test makes spans. */
    public static final boolean SPANS = ItServer.current() == ItServer.PAYARA;

    private Traces() {
    }

    /** {@code got} carries the producer's context: that very one, or where the server makes spans one of its trace. */
    public static void assertContext(String producer, String got) {
        assertContext(producer, got, null);
    }

    public static void assertContext(String producer, String got, String message) {
        if (SPANS) {
            assertNotNull(got, message);
            assertEquals(producer.substring(0, 35), got.substring(0, 35), message);
        } else {
            assertEquals(producer, got, message);
        }
    }

    /** {@code got} carries no producer's context: none at all, or where the server makes spans none of {@code notThis} trace. */
    public static void assertUntraced(String got, String notThis, String message) {
        if (SPANS) {
            assertNotNull(got, message);
            assertFalse(got.startsWith(notThis.substring(0, 35)), message);
        } else {
            assertNull(got, message);
        }
    }
}
