package dev.triggeroutbox.triggers.entity;

import java.util.Arrays;
import java.util.Optional;

/**
 * What an ordered lane of a trigger does when its head dead-letters ({@code onDeadLetter}): moves on to its next row
 * (the default), or stays blocked until an operator skips the dead head or replays it.
 */
public enum LanePolicy {
    CONTINUE("continue"), BLOCK("block");

    private final String wire;

    LanePolicy(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<LanePolicy> fromWire(String wire) {
        return Arrays.stream(values()).filter(p -> p.wire.equals(wire)).findFirst();
    }
}
