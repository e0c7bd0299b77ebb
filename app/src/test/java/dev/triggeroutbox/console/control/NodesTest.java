package dev.triggeroutbox.console.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triggeroutbox.console.control.Nodes.Status;
import org.junit.jupiter.api.Test;

/** How a node's silence reads: alive, stalled past liveness's rule, stopped once a lease has passed. */
class NodesTest {

    private static final long POLL = 1_000;
    private static final long LEASE = 60_000;

    @Test
    void aNodeSilentLongerThanALeaseHasStoppedAndOneThatMissedFivePollsHasStalled() {
        assertEquals(Status.ALIVE, Status.of(900, POLL, LEASE));
        assertEquals(Status.ALIVE, Status.of(6_000, POLL, LEASE), "5 polls and a second: not yet");
        assertEquals(Status.STALLED, Status.of(6_001, POLL, LEASE));
        assertEquals(Status.STALLED, Status.of(60_000, POLL, LEASE));
        assertEquals(Status.STOPPED, Status.of(60_001, POLL, LEASE), "its claims have come back by now");
        assertEquals("stopped", Status.STOPPED.wire());
    }

    @Test
    void aNodeThatPollsSlowlyIsNeverCalledStoppedBeforeItIsLate() {
        long slowPoll = 30_000; // five polls and a second: 151 s, longer than the lease
        assertEquals(Status.ALIVE, Status.of(100_000, slowPoll, LEASE));
        assertEquals(Status.STOPPED, Status.of(151_001, slowPoll, LEASE));
    }
}
