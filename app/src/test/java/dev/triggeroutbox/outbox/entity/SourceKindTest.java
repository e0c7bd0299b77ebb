package dev.triggeroutbox.outbox.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceKindTest {

    @Test
    void wireNamesAreTheReferencesNine() {
        assertEquals(List.of("http", "kv", "docs", "dead_letter", "cron", "files", "pubsub", "email", "invoke"),
                Arrays.stream(SourceKind.values()).map(SourceKind::wire).toList());
    }

    @Test
    void everyWireNameRoundTrips() {
        for (SourceKind kind : SourceKind.values()) {
            assertEquals(kind, SourceKind.fromWire(kind.wire()).orElseThrow());
        }
    }

    @Test
    void anythingElseIsUnknown() {
        for (String wire : new String[] {"HTTP", "dead-letter", "deadLetter", "", " kv", "telepathy", null}) {
            assertTrue(SourceKind.fromWire(wire).isEmpty(), "'" + wire + "' should be unknown");
        }
    }
}
