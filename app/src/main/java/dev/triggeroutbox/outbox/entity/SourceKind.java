package dev.triggeroutbox.outbox.entity;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Where an event came from. The wire names are the reference outbox's and are stored as they are. */
public enum SourceKind {
    HTTP("http"), KV("kv"), DOCS("docs"), DEAD_LETTER("dead_letter"), CRON("cron"), FILES("files"), PUBSUB("pubsub"),
    /** Inbound mail POSTed by a mail gateway. */
    EMAIL("email"),
    /** Fire-and-forget composition: one attempt unless the caller asks for retries. */
    INVOKE("invoke");

    private static final Map<String, SourceKind> BY_WIRE = Arrays.stream(values())
            .collect(Collectors.toUnmodifiableMap(SourceKind::wire, Function.identity()));

    private final String wire;

    SourceKind(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** The kind with this wire name; empty for anything else (case matters, as on the wire). */
    public static Optional<SourceKind> fromWire(String wire) {
        return Optional.ofNullable(wire == null ? null : BY_WIRE.get(wire));
    }

    /** The wire names, for error messages. */
    public static String wireNames() {
        return WIRE_NAMES;
    }

    // built once: every source kind a request names is checked with this text at hand
    private static final String WIRE_NAMES = Arrays.stream(values()).map(SourceKind::wire)
            .collect(Collectors.joining(", "));
}
