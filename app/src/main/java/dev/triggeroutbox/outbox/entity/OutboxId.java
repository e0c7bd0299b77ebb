package dev.triggeroutbox.outbox.entity;

import java.util.Objects;
import java.util.UUID;

/** One outbox row; also the id it keeps in history and as a dead letter. */
public record OutboxId(UUID value) {

    public OutboxId {
        Objects.requireNonNull(value, "OutboxId");
    }

    public static OutboxId random() {
        return new OutboxId(UUID.randomUUID());
    }

    /** Parses a UUID string; throws {@link IllegalArgumentException} when it is not one. */
    public static OutboxId parse(String text) {
        return new OutboxId(UUID.fromString(text));
    }

    /** Null-tolerant wrap, for nullable columns. */
    public static OutboxId ofNullable(UUID value) {
        return value == null ? null : new OutboxId(value);
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
