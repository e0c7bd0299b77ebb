package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Ipv4FormsTest {

    private static List<String> readings(String host) {
        return Ipv4Forms.readings(host).stream().map(InetAddress::getHostAddress).collect(Collectors.toList());
    }

    @Test
    void readsEveryInetAtonLayout() {
        assertEquals(List.of("1.2.3.4"), readings("1.2.3.4"));
        assertEquals(List.of("1.2.0.3"), readings("1.2.3"));
        assertEquals(List.of("1.0.0.2"), readings("1.2"));
        assertEquals(List.of("1.2.3.4"), readings("16909060"));
        assertEquals(List.of("255.255.255.255"), readings("0xffffffff"));
    }

    @Test
    void readsLeadingZerosBothWays() {
        assertEquals(List.of("8.0.0.1", "10.0.0.1"), readings("010.0.0.1"));
        assertEquals(List.of("9.0.0.1"), readings("09.0.0.1"), "9 is no octal digit: only the decimal reading");
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.com", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "1.2.65536", "4294967296", "0x",
            "1..2", "deadbeef", "1.2.3.4a", ""})
    void isEmptyForWhatIsNoNumber(String host) {
        assertTrue(Ipv4Forms.readings(host).isEmpty(), host + " -> " + readings(host));
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.1", "010.0.0.1", "1.2.3.04", "1.2.3", "0x7f.0.0.1", "1.2.3.4."})
    void aDottedQuadIsOnlyTheCanonicalForm(String text) {
        assertTrue(Ipv4Forms.dottedQuad(text).isEmpty(), text);
    }
}
