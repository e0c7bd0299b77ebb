package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.dispatch.entity.ClaimedRow;
import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** Routes a claimed row to the delivery target its trigger names. */
@ApplicationScoped
public class Targets {

    @Inject
    @Any
    Instance<DeliveryTarget> all;

    @Inject
    DeliveryThreads threads;

    private final Map<String, DeliveryTarget> byType = new HashMap<>();

    @PostConstruct
    void index() {
        all.forEach(t -> byType.put(t.type(), t));
    }

    public CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout) {
        DeliveryTarget target = byType.get(row.trigger().targetType());
        if (target == null) {
            return CompletableFuture.completedFuture(
                    DeliveryResult.rejected("target type '" + row.trigger().targetType() + "' is not supported"));
        }
        return target.deliver(row, maxAttempts, timeout);
    }

    /** The node is stopping: deliveries waiting for a thread or a connection are given back unstarted, none starts any more. */
    public int stopStarting() {
        int given = threads.stopStarting();
        for (DeliveryTarget t : byType.values()) {
            given += t.stopStarting();
        }
        return given;
    }

    /** Per trigger, the most rows the next claim should take where a target is the bound ({@link DeliveryTarget#rooms()}). */
    public Map<UUID, Integer> rooms() {
        Map<UUID, Integer> rooms = new HashMap<>();
        for (DeliveryTarget t : byType.values()) {
            t.rooms().forEach((trigger, room) -> rooms.merge(trigger, room, Math::min));
        }
        return rooms;
    }
}
