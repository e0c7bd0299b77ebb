package dev.triggeroutbox.outbox.entity;

import java.util.Objects;
import java.util.UUID;

/** A trigger: which target an event of a source kind goes to. */
public record TriggerId(UUID value) {

    public TriggerId {
        Objects.requireNonNull(value, "TriggerId");
    }

    public static TriggerId random() {
        return new TriggerId(UUID.randomUUID());
    }

    /** Parses a UUID string; throws {@link IllegalArgumentException} when it is not one. */
    public static TriggerId parse(String text) {
        return new TriggerId(UUID.fromString(text));
    }

    /** Null-tolerant wrap, for nullable columns. */
    public static TriggerId ofNullable(UUID value) {
        return value == null ? null : new TriggerId(value);
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
