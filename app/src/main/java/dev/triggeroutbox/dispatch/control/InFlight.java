package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.targets.entity.ClaimedRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's deliveries in flight per app and per trigger, and what room each has left in its share of
 * the node: the claim passes over an app or trigger at its share and takes no more than the room of the
 * others, so one app's slow receiver (or one slow trigger of an app) holds only its own share.
 */
final class InFlight {

    private final Map<UUID, Integer> apps = new ConcurrentHashMap<>();
    private final Map<UUID, Integer> triggers = new ConcurrentHashMap<>();

    void started(ClaimedRow row) {
        apps.merge(row.appId().value(), 1, Integer::sum);
        if (row.triggerId() != null) {
            triggers.merge(row.triggerId().value(), 1, Integer::sum);
        }
    }

    void ended(ClaimedRow row) {
        apps.computeIfPresent(row.appId().value(), InFlight::less);
        if (row.triggerId() != null) {
            triggers.computeIfPresent(row.triggerId().value(), InFlight::less);
        }
    }

    private static Integer less(UUID key, Integer count) {
        return count <= 1 ? null : count - 1;
    }

    /**
     * The room a claim of {@code limit} rows has now; {@code targetRooms} bound some triggers further (what their
     * targets can start now: a webhook origin with every connection busy has none).
     */
    Claims.Room room(int appShare, int triggerShare, int limit, Map<UUID, Integer> targetRooms) {
        List<UUID> fullApps = new ArrayList<>();
        Map<UUID, Integer> appRooms = new HashMap<>();
        split(apps, appShare, fullApps, appRooms);
        List<UUID> fullTriggers = new ArrayList<>();
        Map<UUID, Integer> triggerRooms = new HashMap<>();
        split(triggers, triggerShare, fullTriggers, triggerRooms);
        targetRooms.forEach((trigger, room) -> {
            if (fullTriggers.contains(trigger)) {
                return; // at its share already
            }
            if (room <= 0) {
                triggerRooms.remove(trigger);
                fullTriggers.add(trigger);
            } else {
                triggerRooms.merge(trigger, Math.min(room, triggerShare), Math::min);
            }
        });
        return new Claims.Room(fullApps, fullTriggers, appRooms, triggerRooms, Math.min(appShare, limit),
                Math.min(triggerShare, limit));
    }

    private static void split(Map<UUID, Integer> counts, int share, List<UUID> full, Map<UUID, Integer> rooms) {
        counts.forEach((id, count) -> {
            if (count >= share) {
                full.add(id);
            } else {
                rooms.put(id, share - count);
            }
        });
    }
}
