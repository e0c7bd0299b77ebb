package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class InFlightTest {

    private final InFlight inFlight = new InFlight();

    private static ClaimedRow row(UUID app, UUID trigger) {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        return new ClaimedRow(OutboxId.random(), new AppId(app), "kv", new TriggerId(trigger), null, null, "{}",
                "alice",
                0, null, 1, null, now, now, new ClaimedRow.TriggerTarget("webhook", "http://h/x", null, null));
    }

    @Test
    void aTriggerWhoseTargetHasNoRoomIsPassedOverAndOneWithLittleRoomGetsNoMoreThanThat() {
        UUID app = UUID.randomUUID();
        UUID slow = UUID.randomUUID();
        UUID fast = UUID.randomUUID();
        UUID unseen = UUID.randomUUID();
        inFlight.started(row(app, slow));
        inFlight.started(row(app, fast));

        Claims.Room room = inFlight.room(100, 50, 500, Map.of(slow, 0, fast, 7, unseen, 80));

        assertEquals(List.of(slow), room.fullTriggers());
        assertEquals(7, room.triggers().get(fast), "the target's room, below the trigger's share");
        assertEquals(50, room.triggers().get(unseen), "never more than the trigger's share");
        assertTrue(room.fullApps().isEmpty());
        assertEquals(98, room.apps().get(app), "two of the app's rows in flight");
    }

    @Test
    void aTriggerAtItsShareStaysPassedOverOnceWhateverItsTargetSays() {
        UUID app = UUID.randomUUID();
        UUID trigger = UUID.randomUUID();
        inFlight.started(row(app, trigger));
        inFlight.started(row(app, trigger));

        Claims.Room room = inFlight.room(100, 2, 500, Map.of(trigger, 0));

        assertEquals(List.of(trigger), room.fullTriggers());
        assertEquals(null, room.triggers().get(trigger));
    }
}
