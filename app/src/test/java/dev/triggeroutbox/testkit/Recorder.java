package dev.triggeroutbox.testkit;

import dev.triggeroutbox.api.OutboxDelivery;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** What the test handlers received, per outbox row: every attempt with its time. */
@ApplicationScoped
public class Recorder {

    public record Received(OutboxDelivery delivery, String handler, Instant at) {
    }

    private final Map<UUID, List<Received>> byRow = new ConcurrentHashMap<>();

    public void record(String handler, OutboxDelivery delivery) {
        byRow.computeIfAbsent(delivery.id(), id -> new CopyOnWriteArrayList<>())
                .add(new Received(delivery, handler, Instant.now()));
    }

    public List<Received> of(UUID row) {
        return byRow.getOrDefault(row, List.of());
    }

    /** Every attempt recorded for rows of this trigger. */
    public List<Received> ofTrigger(UUID trigger) {
        return byRow.values().stream().flatMap(List::stream).filter(r -> trigger.equals(r.delivery().triggerId()))
                .toList();
    }

    public int count(UUID row) {
        return of(row).size();
    }
}
