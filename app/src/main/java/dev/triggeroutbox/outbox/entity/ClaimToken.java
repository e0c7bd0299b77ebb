package dev.triggeroutbox.outbox.entity;

import java.util.Objects;
import java.util.UUID;

/** The fence of one claim: finishing a row must present the token it was claimed with. */
public record ClaimToken(UUID value) {

    public ClaimToken {
        Objects.requireNonNull(value, "ClaimToken");
    }

    public static ClaimToken random() {
        return new ClaimToken(UUID.randomUUID());
    }

    /** Parses a UUID string; throws {@link IllegalArgumentException} when it is not one. */
    public static ClaimToken parse(String text) {
        return new ClaimToken(UUID.fromString(text));
    }

    /** Null-tolerant wrap, for nullable columns. */
    public static ClaimToken ofNullable(UUID value) {
        return value == null ? null : new ClaimToken(value);
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
