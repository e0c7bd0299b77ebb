package dev.triggeroutbox.outbox.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The receiver's rules of W3C Trace Context for the headers a producer sends. */
class TraceContextTest {

    private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void keepsAWellFormedContextAsItCame() {
        TraceContext c = TraceContext.parse(PARENT, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
        assertEquals(PARENT, c.traceparent());
        assertEquals("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", c.tracestate());
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", c.traceId());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "",
            "garbage",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",   // upper-case hex
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",   // all-zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",   // all-zero parent id
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // the forbidden version
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", // version 00 has four fields
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",    // a digit short
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nx: y",
    })
    void aMalformedParentIsNoContextAndTakesItsStateWithIt(String parent) {
        assertNull(TraceContext.parse(parent, "rojo=1"));
    }

    @Test
    void noParentIsNoContext() {
        assertNull(TraceContext.parse(null, "rojo=1"));
    }

    @Test
    void aLaterVersionIsReadByItsFirstFourFieldsAndPassedOnAsVersion00() {
        TraceContext c = TraceContext.parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-later",
                null);
        assertEquals(PARENT, c.traceparent());
        assertNull(c.tracestate());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "Rojo=1",              // keys are lower case
            "rojo",                // no value
            "rojo=1,rojo=2",       // a key twice
            "rojo=a,b",            // a member without '='
            "rojo=a=b",            // '=' in a value
            "rojo=a\u00e9",        // outside printable ASCII
            "rojo=a\r\nx: y",
    })
    void aMalformedStateIsDroppedAndTheParentKept(String state) {
        TraceContext c = TraceContext.parse(PARENT, state);
        assertEquals(PARENT, c.traceparent());
        assertNull(c.tracestate(), state);
    }

    @Test
    void emptyMembersAndWhitespaceAroundMembersAreAllowed() {
        TraceContext c = TraceContext.parse(PARENT, " rojo=1 ,, tenant@vendor=x y ,");
        assertEquals("rojo=1,tenant@vendor=x y", c.tracestate());
    }

    @Test
    void moreThan32MembersIsMalformed() {
        String state = IntStream.range(0, 33).mapToObj(i -> "k" + i + "=v").collect(Collectors.joining(","));
        assertNull(TraceContext.parse(PARENT, state).tracestate());
    }

    @Test
    void aLongStateLosesMembersFromItsEndUntilItFits() {
        String member = "k%02d=" + "v".repeat(96);
        String state = IntStream.range(0, 10).mapToObj(i -> member.formatted(i)).collect(Collectors.joining(","));
        String kept = TraceContext.parse(PARENT, state).tracestate();
        assertEquals(IntStream.range(0, 5).mapToObj(i -> member.formatted(i)).collect(Collectors.joining(",")), kept);
    }
}
