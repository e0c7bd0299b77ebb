package dev.triggeroutbox.outbox.entity;

import java.util.Objects;
import java.util.UUID;

/** An application (tenant) whose triggers and rows these are. */
public record AppId(UUID value) {

    public AppId {
        Objects.requireNonNull(value, "AppId");
    }

    public static AppId random() {
        return new AppId(UUID.randomUUID());
    }

    /** Parses a UUID string; throws {@link IllegalArgumentException} when it is not one. */
    public static AppId parse(String text) {
        return new AppId(UUID.fromString(text));
    }

    /** Null-tolerant wrap, for nullable columns. */
    public static AppId ofNullable(UUID value) {
        return value == null ? null : new AppId(value);
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
