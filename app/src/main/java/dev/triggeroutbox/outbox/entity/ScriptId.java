package dev.triggeroutbox.outbox.entity;

import java.util.Objects;
import java.util.UUID;

/** The script (function) a trigger runs, as the reference names it; opaque to the outbox. */
public record ScriptId(UUID value) {

    public ScriptId {
        Objects.requireNonNull(value, "ScriptId");
    }

    public static ScriptId random() {
        return new ScriptId(UUID.randomUUID());
    }

    /** Parses a UUID string; throws {@link IllegalArgumentException} when it is not one. */
    public static ScriptId parse(String text) {
        return new ScriptId(UUID.fromString(text));
    }

    /** Null-tolerant wrap, for nullable columns. */
    public static ScriptId ofNullable(UUID value) {
        return value == null ? null : new ScriptId(value);
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
