package dev.triggeroutbox.console.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PageCursorTest {

    private static String encoded(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aCursorRoundTrips() {
        PageCursor c = new PageCursor(OffsetDateTime.parse("2026-12-01T12:00:00.123456Z"), UUID.randomUUID());
        assertEquals(c, PageCursor.decode(c.encode()));
    }

    @Test
    void aForgedCursorWithATimeTheDatabaseCannotHoldIsRefused() {
        for (String at : new String[] {"+999999999-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z",
                "+10000-01-01T00:00:00Z"}) {
            String forged = encoded(at + "|" + UUID.randomUUID());
            assertThrows(IllegalArgumentException.class, () -> PageCursor.decode(forged), at);
        }
    }
}
