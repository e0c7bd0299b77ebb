package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

    // Sun, 06 Nov 1994 08:49:37 GMT, the example date of RFC 9110
    private static final Instant NOW = Instant.parse("1994-11-06T08:48:37Z");

    @Test
    void readsDelaySeconds() {
        assertEquals(Duration.ofSeconds(120), RetryAfter.parse("120", NOW));
        assertEquals(Duration.ofSeconds(5), RetryAfter.parse(" 5 ", NOW));
        assertEquals(Duration.ZERO, RetryAfter.parse("0", NOW));
    }

    @Test
    void boundsHugeDelays() {
        assertEquals(RetryAfter.LONGEST, RetryAfter.parse("99999999999999999999999", NOW));
        assertEquals(RetryAfter.LONGEST, RetryAfter.parse("999999999", NOW));
    }

    @Test
    void readsAllThreeHttpDateFormats() {
        Duration minute = Duration.ofSeconds(60);
        assertEquals(minute, RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", NOW), "IMF-fixdate");
        assertEquals(minute, RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", NOW), "RFC 850");
        assertEquals(minute, RetryAfter.parse("Sun Nov  6 08:49:37 1994", NOW), "asctime");
    }

    @Test
    void aDateInThePastMeansNow() {
        assertEquals(Duration.ZERO, RetryAfter.parse("Sat, 05 Nov 1994 08:49:37 GMT", NOW));
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"soon", "-5", "1.5", "+3", "12s", "Mon, 06 Nov 1994 08:49:37 GMT", "06 Nov 1994", "   "})
    void ignoresWhatItCannotRead(String value) {
        assertNull(RetryAfter.parse(value, NOW));
    }
}
