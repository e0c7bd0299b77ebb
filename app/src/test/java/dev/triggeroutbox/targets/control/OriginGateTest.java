package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OriginGateTest {

    private static final String SLOW = "http://slow.example:80";
    private static final String FAST = "http://fast.example:80";

    private final AtomicLong now = new AtomicLong(1_000);
    private final OriginGate gate = new OriginGate(2, 2, now::get);
    private final List<String> log = new ArrayList<>();

    private OriginGate.Entry enter(String origin, UUID trigger, String name, long deadline) {
        return gate.enter(origin, trigger, deadline, () -> log.add("start " + name), () -> log.add("expire " + name));
    }

    @Test
    void atMostThePlacesOfAnOriginStartAndTheOthersStartInOrderAsExchangesEnd() {
        UUID t = UUID.randomUUID();
        OriginGate.Entry a = enter(SLOW, t, "a", Long.MAX_VALUE);
        enter(SLOW, t, "b", Long.MAX_VALUE);
        enter(SLOW, t, "c", Long.MAX_VALUE);
        enter(SLOW, t, "d", Long.MAX_VALUE);
        enter(FAST, UUID.randomUUID(), "x", Long.MAX_VALUE); // another origin never waits behind this one
        assertEquals(List.of("start a", "start b", "start x"), log);
        assertTrue(a.started());

        gate.ended(a, true);
        assertEquals(List.of("start a", "start b", "start x", "start c"), log);
    }

    @Test
    void anOriginThatAnswersFastGetsMorePlacesAndOneThatAnswersSlowlyGivesThemBack() {
        OriginGate adaptive = new OriginGate(1, 3, now::get);
        UUID t = UUID.randomUUID();
        List<OriginGate.Entry> entries = new ArrayList<>();
        List<Integer> started = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int n = i;
            entries.add(adaptive.enter(FAST, t, Long.MAX_VALUE, () -> started.add(n), () -> log.add("expire")));
        }
        assertEquals(Map.of(t, 0), adaptive.rooms(), "one place, three waiting");
        now.addAndGet(OriginGate.FAST_NANOS / 2);
        adaptive.ended(firstStarted(entries, started), true); // fast: two places, two start
        adaptive.ended(firstStarted(entries, started), true); // fast: three places (the most), the last one starts
        assertEquals(Map.of(t, 1), adaptive.rooms(), "two in flight of three places");

        now.addAndGet(2 * OriginGate.FAST_NANOS);
        adaptive.ended(firstStarted(entries, started), true); // slow: two places
        assertEquals(Map.of(t, 1), adaptive.rooms(), "one in flight of two places");
        adaptive.ended(firstStarted(entries, started), false); // failed: one place, nothing in flight
        assertEquals(Map.of(), adaptive.rooms(), "back at its first places: forgotten");
        assertEquals(List.of(), log);
    }

    @Test
    void anOriginThatFailsLosesHalfItsPlacesAtOnce() {
        OriginGate adaptive = new OriginGate(2, 64, now::get);
        UUID t = UUID.randomUUID();
        for (int i = 0; i < 40; i++) { // fast answers, one at a time: 2 + 40 places
            adaptive.ended(adaptive.enter(FAST, t, Long.MAX_VALUE, () -> {}, () -> {}), true);
        }
        OriginGate.Entry held = adaptive.enter(FAST, t, Long.MAX_VALUE, () -> {}, () -> {});
        assertEquals(Map.of(t, 41), adaptive.rooms(), "42 places, one in flight");

        adaptive.ended(adaptive.enter(FAST, t, Long.MAX_VALUE, () -> {}, () -> {}), false); // no answer: 21 places
        assertEquals(Map.of(t, 20), adaptive.rooms());
        for (int i = 0; i < 5; i++) { // 10, 5, then never below the first 2
            adaptive.ended(adaptive.enter(FAST, t, Long.MAX_VALUE, () -> {}, () -> {}), false);
        }
        assertEquals(Map.of(t, 1), adaptive.rooms(), "two places, one in flight");
        adaptive.ended(held, true);
    }

    /** The entry that started first of those not handed back yet. */
    private static OriginGate.Entry firstStarted(List<OriginGate.Entry> entries, List<Integer> started) {
        return entries.get(started.remove(0));
    }

    @Test
    void aDeliveryStillWaitingAtItsDeadlineIsGivenBackInsteadOfStarted() {
        UUID t = UUID.randomUUID();
        OriginGate.Entry a = enter(SLOW, t, "a", Long.MAX_VALUE);
        enter(SLOW, t, "b", Long.MAX_VALUE);
        OriginGate.Entry late = enter(SLOW, t, "late", 2_000);
        enter(SLOW, t, "c", Long.MAX_VALUE);
        now.set(2_001);

        gate.ended(a, true);
        assertEquals(List.of("start a", "start b", "expire late", "start c"), log);
        assertFalse(late.started());
    }

    @Test
    void theSweepGivesBackOverdueDeliveriesOfAnOriginWhoseExchangesAllHang() {
        UUID t = UUID.randomUUID();
        enter(SLOW, t, "a", Long.MAX_VALUE);
        enter(SLOW, t, "b", Long.MAX_VALUE);
        enter(SLOW, t, "soon", 1_500);
        enter(SLOW, t, "later", 9_000);
        now.set(1_501);

        assertEquals(1, gate.expireOverdue());
        assertEquals(List.of("start a", "start b", "expire soon"), log);
        assertTrue(gate.anyWaiting());
    }

    @Test
    void theClaimIsToldToLeaveTheTriggersOfAFullOriginAndHowManyFitElsewhere() {
        UUID slow1 = UUID.randomUUID();
        UUID slow2 = UUID.randomUUID();
        UUID fast = UUID.randomUUID();
        enter(SLOW, slow1, "a", Long.MAX_VALUE);
        enter(SLOW, slow2, "b", Long.MAX_VALUE);
        enter(SLOW, slow2, "c", Long.MAX_VALUE);
        OriginGate.Entry x = enter(FAST, fast, "x", Long.MAX_VALUE);

        assertEquals(Map.of(slow1, 0, slow2, 0, fast, 1), gate.rooms());
        gate.ended(x, true);
        assertEquals(Map.of(slow1, 0, slow2, 0), gate.rooms(), "an origin with nothing in flight is forgotten");
    }

    @Test
    void aCancelledWaitLeavesTheLineAndAStoppingNodeGivesBackEveryWaitingDelivery() {
        UUID t = UUID.randomUUID();
        OriginGate.Entry a = enter(SLOW, t, "a", Long.MAX_VALUE);
        enter(SLOW, t, "b", Long.MAX_VALUE);
        OriginGate.Entry gone = enter(SLOW, t, "gone", Long.MAX_VALUE);
        enter(SLOW, t, "c", Long.MAX_VALUE);
        enter(SLOW, t, "d", Long.MAX_VALUE);

        gone.cancel();
        gate.ended(a, true);
        assertEquals(List.of("start a", "start b", "start c"), log);
        assertEquals(1, gate.expireAll());
        assertEquals(List.of("start a", "start b", "start c", "expire d"), log);
        assertFalse(gate.anyWaiting());
    }
}
