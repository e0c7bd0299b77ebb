package dev.triggeroutbox.outbox.entity;

import java.util.Objects;
import java.util.UUID;

/** An execution; the root execution id follows a whole cascade of triggers. */
public record ExecutionId(UUID value) {

    public ExecutionId {
        Objects.requireNonNull(value, "ExecutionId");
    }

    public static ExecutionId random() {
        return new ExecutionId(UUID.randomUUID());
    }

    /** Parses a UUID string; throws {@link IllegalArgumentException} when it is not one. */
    public static ExecutionId parse(String text) {
        return new ExecutionId(UUID.fromString(text));
    }

    /** Null-tolerant wrap, for nullable columns. */
    public static ExecutionId ofNullable(UUID value) {
        return value == null ? null : new ExecutionId(value);
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
