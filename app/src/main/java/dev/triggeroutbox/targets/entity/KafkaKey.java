package dev.triggeroutbox.targets.entity;

import java.util.Arrays;
import java.util.Optional;

/**
 * Which value of a row keys the record a kafka target sends (records of one key go to one partition, in the
 * order they were sent): the row's ordering key (rows without one are sent without a key, spread over the
 * partitions), its id (the default: every record its own key), or its app.
 */
public enum KafkaKey {
    ORDERING_KEY("orderingKey"), ROW_ID("rowId"), APP_ID("appId");

    public static final KafkaKey DEFAULT = ROW_ID;

    private final String wire;

    KafkaKey(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<KafkaKey> fromWire(String wire) {
        return Arrays.stream(values()).filter(k -> k.wire.equals(wire)).findFirst();
    }
}
