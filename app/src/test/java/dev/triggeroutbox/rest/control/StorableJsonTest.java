package dev.triggeroutbox.rest.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The jsonb limits as PostgreSQL 15 showed them: {@code '1e131071'::jsonb} stores, {@code '1e131072'} overflows. */
class StorableJsonTest {

    @Test
    void numbersAreHeldToPostgresNumericRange() {
        assertTrue(StorableJson.check("[1e131071, -1e131071, 1e-16383, 1.5e-16382, 0.5]").storable());
        for (String n : new String[] {"1e131072", "-12e131071", "1e-16384", "1.00e-16382", "1e99999999999",
                "1e-2147483648"}) {
            StorableJson.Check c = StorableJson.check("{\"a\":[" + n + "]}");
            assertFalse(c.storable(), n);
        }
    }

    @Test
    void theStoredSizeCountsNumbersWrittenOutInFull() {
        assertEquals(401 + 2, StorableJson.check("[1e400]").storedBytes());
        assertEquals(1 + 2 + 400 + 2, StorableJson.check("[-1e-400]").storedBytes(), "-0.000…1");
        assertEquals("{\"a\":\"é\",\"b\":1.50}".getBytes(java.nio.charset.StandardCharsets.UTF_8).length,
                StorableJson.check("{\"a\":\"é\",\"b\":1.50}").storedBytes(),
                "a number written out already counts as sent");
    }

    @Test
    void nulAndLoneSurrogatesAreRefusedInValuesAndKeys() {
        assertFalse(StorableJson.check("{\"a\":\"x\\u0000\"}").storable());
        assertFalse(StorableJson.check("{\"\\u0000\":1}").storable());
        assertFalse(StorableJson.check("[\"\\ud800\"]").storable(), "a high surrogate alone");
        assertFalse(StorableJson.check("[\"\\udc00x\"]").storable(), "a low surrogate alone");
        assertFalse(StorableJson.check("{\"\\ud83d\":1}").storable(), "in a key");
        assertTrue(StorableJson.check("[\"\\ud83d\\ude00\", \"\uD83D\uDE00\"]").storable(), "a pair is one character");
    }

    @Test
    void anEscapedBackslashBeforeU0000IsTextNotNul() {
        // the JSON string "\\u0000": a backslash, then the five characters u0000
        assertTrue(StorableJson.check("{\"path\":\"C:\\\\u0000\"}").storable());
    }

    @Test
    void textThatIsNotOneJsonValueIsRefused() {
        for (String bad : new String[] {"", "{", "[1,2] 3", "{\"a\":}", "nul"}) {
            assertEquals("must be JSON text", StorableJson.check(bad).problem(), bad);
        }
        assertNull(StorableJson.textProblem("plain text"));
    }
}
