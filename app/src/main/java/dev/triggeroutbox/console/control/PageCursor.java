package dev.triggeroutbox.console.control;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.UUID;

/**
 * Where the next page of a newest-first list starts: after this (time, id). Opaque to callers
 * (base64url), so the ordering columns can change without breaking clients that only pass it back.
 */
public record PageCursor(OffsetDateTime at, UUID id) {

    public String encode() {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((at.toString() + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    /** Throws IllegalArgumentException for anything that is not a cursor this API handed out. */
    public static PageCursor decode(String text) {
        try {
            String[] parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8).split("\\|");
            if (parts.length != 2) {
                throw new IllegalArgumentException("not a cursor");
            }
            // in UTC: PostgreSQL holds offsets within ±15:59 only, Java up to ±18:00
            OffsetDateTime at = OffsetDateTime.parse(parts[0]).withOffsetSameInstant(ZoneOffset.UTC);
            // every cursor handed out holds a database time; a forged one past timestamptz would fail the query
            if (at.getYear() < 1 || at.getYear() > 9999) {
                throw new IllegalArgumentException("not a cursor");
            }
            return new PageCursor(at, UUID.fromString(parts[1]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a cursor", e);
        }
    }
}
