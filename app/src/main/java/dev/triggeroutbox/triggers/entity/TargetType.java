package dev.triggeroutbox.triggers.entity;

import java.util.Arrays;
import java.util.Optional;

/** Where a trigger delivers: an HTTP webhook, a CDI handler in the deployment, a JMS destination or a Kafka topic. */
public enum TargetType {
    WEBHOOK("webhook"), HANDLER("handler"), JMS("jms"), KAFKA("kafka");

    private final String wire;

    TargetType(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<TargetType> fromWire(String wire) {
        return Arrays.stream(values()).filter(t -> t.wire.equals(wire)).findFirst();
    }
}
