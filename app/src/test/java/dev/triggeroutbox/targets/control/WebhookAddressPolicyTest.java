package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookAddressPolicyTest {

    /** A DNS that knows a few names; never the real one, so these tests run offline and stay exact. */
    private final Map<String, InetAddress[]> dns = Map.of(
            "public.example", addresses("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"),
            "mixed.example", addresses("93.184.216.34", "10.0.0.7"),
            "localhost", addresses("127.0.0.1", "::1"),
            "2130706433", addresses("127.0.0.1"), // as the JDK reads it
            "metadata.example", addresses("169.254.169.254"),
            "ula.example", addresses("fd00::1"),
            "mapped.example", new InetAddress[] {mappedIpv6("mapped.example", 127, 0, 0, 1)},
            "mapped-public.example", new InetAddress[] {mappedIpv6("mapped-public.example", 93, 184, 216, 34)});
    private final List<String> lookups = new ArrayList<>();

    private final WebhookAddressPolicy.Resolver resolver = host -> {
        lookups.add(host);
        InetAddress[] found = dns.get(host);
        if (found == null) {
            throw new UnknownHostException(host);
        }
        return found;
    };

    private final WebhookAddressPolicy strict = new WebhookAddressPolicy(WebhookAllowList.none(), resolver);

    private static InetAddress[] addresses(String... literals) {
        InetAddress[] result = new InetAddress[literals.length];
        for (int i = 0; i < literals.length; i++) {
            result[i] = AddressRange.literal(literals[i]).orElseThrow();
        }
        return result;
    }

    /** ::ffff:a.b.c.d as an Inet6Address, the way a resolver other than the JDK's may hand it back. */
    private static InetAddress mappedIpv6(String host, int a, int b, int c, int d) {
        byte[] bytes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, (byte) a, (byte) b, (byte) c, (byte) d};
        try {
            return Inet6Address.getByAddress(host, bytes, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private void assertRefused(String url, String expectedKind) {
        WebhookAddressPolicy.Verdict v = strict.check(url);
        assertFalse(v.allowed(), url + " was allowed");
        assertNull(v.uri());
        assertTrue(v.refusal().contains(expectedKind), url + ": " + v.refusal());
    }

    @Test
    void theRefusalSaysWhyAndHowToAllowIt() {
        assertEquals("host 127.0.0.1 resolves to a loopback address; allow it with outbox.webhook.allowed-hosts",
                strict.check("http://127.0.0.1:8080/hook").refusal());
        assertEquals("host localhost resolves to a loopback address (127.0.0.1); allow it with "
                + "outbox.webhook.allowed-hosts", strict.check("http://LOCALHOST/hook").refusal());
    }

    @ParameterizedTest
    @CsvSource({
            "http://127.0.0.1/, loopback",
            "http://127.255.10.1/, loopback",
            "http://[::1]/, loopback",
            "http://[0:0:0:0:0:0:0:1]:9000/, loopback",
            "http://0.0.0.0/, unspecified",
            "http://0.1.2.3/, unspecified",
            "http://[::]/, unspecified",
            "http://10.0.0.1/, private",
            "http://10.255.255.255/, private",
            "http://172.16.0.1/, private",
            "http://172.31.255.254/, private",
            "http://192.168.0.1/, private",
            "http://192.168.255.255/, private",
            "http://169.254.169.254/latest/meta-data/, link-local",
            "http://[fe80::1]/, link-local",
            "http://[febf:ffff::1]/, link-local",
            "http://[fec0::1]/, site-local",
            "http://100.64.0.1/, carrier-grade NAT",
            "http://100.127.255.254/, carrier-grade NAT",
            "http://198.18.0.1/, benchmarking",
            "http://198.19.255.254/, benchmarking",
            "http://192.0.0.8/, IETF protocol",
            "http://[64:ff9b:1::a00:1]/, local-use NAT64",
            "http://[fc00::1]/, unique-local",
            "http://[fdff:ffff::1]/, unique-local",
            "http://224.0.0.1/, multicast",
            "http://239.255.255.250/, multicast",
            "http://[ff02::1]/, multicast",
            "http://255.255.255.255/, broadcast",
            "http://240.0.0.1/, reserved",
    })
    void refusesEveryNonPublicRange(String url, String kind) {
        assertRefused(url, kind);
    }

    @ParameterizedTest
    @CsvSource({
            // the JDK unmaps ::ffff:a.b.c.d in a URL itself; the policy must judge the IPv4 address
            "http://[::ffff:127.0.0.1]/, loopback",
            "http://[::ffff:7f00:1]/, loopback",
            "http://[::ffff:10.1.2.3]/, private",
            "http://[::ffff:169.254.169.254]/, link-local",
            "http://[::127.0.0.1]/, IPv4-compatible form of a loopback address",
            "http://[::a9fe:a9fe]/, IPv4-compatible form of a link-local address",
            "http://[64:ff9b::7f00:1]/, NAT64 form of a loopback address",
            "http://[::ffff:0:192.168.1.1]/, IPv4-translated form of a private address",
    })
    void refusesIpv4AddressesHiddenInIpv6(String url, String kind) {
        assertRefused(url, kind);
    }

    @ParameterizedTest
    @CsvSource({
            "http://2130706433/, 127.0.0.1",
            "http://0177.0.0.1/, 127.0.0.1",
            "http://0x7f.0.0.1/, 127.0.0.1",
            "http://0x7F000001/, 127.0.0.1",
            "http://017700000001/, 127.0.0.1",
            "http://127.1/, 127.0.0.1",
            "http://127.0.1/, 127.0.0.1",
            "http://0x7f.1/, 127.0.0.1",
            "http://0/, 0.0.0.0",
            "http://0xa9.0xfe.0xa9.0xfe/, 169.254.169.254",
            "http://2852039166/, 169.254.169.254",
            "http://192.168.257/, 192.168.1.1",
            // inet_aton reads 8.0.0.1, but the JDK (and others) read the leading zero as decimal: 10.0.0.1
            "http://010.0.0.1/, 10.0.0.1",
            "http://0127.0.0.1/, 127.0.0.1",
    })
    void refusesNumericSpellingsByTheAddressTheyDenote(String url, String address) {
        WebhookAddressPolicy.Verdict v = strict.check(url);
        assertFalse(v.allowed(), url + " was allowed");
        assertTrue(v.refusal().contains("can be read as") && v.refusal().contains("(" + address + ")"),
                url + ": " + v.refusal());
    }

    @Test
    void refusesANameWhenAnyOfItsAddressesIsNotPublic() {
        assertRefused("https://mixed.example/hook", "a private address (10.0.0.7)");
        assertRefused("https://metadata.example/", "link-local");
        assertRefused("https://ula.example/", "unique-local");
        assertRefused("https://mapped.example/", "IPv4-mapped form of a loopback address");
        assertRefused("https://localhost./", "loopback");
    }

    @Test
    void refusesAnUnresolvableHostAndMarksItAsPossiblyPassing() {
        WebhookAddressPolicy.Verdict v = strict.check("https://nowhere.example/hook");
        assertFalse(v.allowed());
        assertTrue(v.unresolved());
        assertEquals("host nowhere.example cannot be resolved", v.refusal());
        assertFalse(strict.check("http://127.0.0.1/").unresolved(), "a policy refusal is not 'unresolved'");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"ftp://public.example/", "file:///etc/passwd", "gopher://public.example/",
            "javascript:alert(1)", "mailto:ops@public.example", "http:public.example", "//public.example/hook",
            "/relative/path", "http:///no-host", "http://under_score.example/", "not a url", "http://[fe80::1%25eth0]/",
            "http://[zz::1]/"})
    void refusesWhatIsNotAnHttpUrlWithAHost(String url) {
        WebhookAddressPolicy.Verdict v = strict.check(url);
        assertFalse(v.allowed(), url + " was allowed");
        assertFalse(v.refusal().isBlank());
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://user:secret@public.example/", "https://user@public.example/",
            "https://public.example@127.0.0.1/"})
    void refusesUserInfo(String url) {
        assertRefused(url, "user info");
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://public.example/hook", "HTTP://Public.Example:8443/a?b=c", "http://8.8.8.8/",
            "http://172.15.255.255/", "http://172.32.0.1/", "http://100.63.255.255/", "http://100.128.0.1/",
            "http://169.255.0.1/", "http://11.0.0.1/", "http://223.255.255.255/", "http://[2001:4860:4860::8888]/",
            "https://mapped-public.example/"})
    void allowsPublicAddresses(String url) {
        WebhookAddressPolicy.Verdict v = strict.check(url);
        assertTrue(v.allowed(), url + ": " + v.refusal());
        assertEquals(url, v.uri().toString());
    }

    @Test
    void anAllowListedNameIsAllowedWithoutAskingDns() {
        WebhookAddressPolicy policy = new WebhookAddressPolicy(WebhookAllowList.parse(" LocalHost , hooks.internal. "),
                host -> {
                    throw new AssertionError("resolved " + host);
                });
        assertTrue(policy.check("http://localhost:8080/hook").allowed());
        assertTrue(policy.check("http://LOCALHOST./hook").allowed());
        assertTrue(policy.check("http://hooks.internal/").allowed());
        assertFalse(policy.check("http://127.0.0.1/").allowed(), "a name entry does not allow its address");
    }

    @Test
    void anAllowListedAddressAllowsExactlyThatAddress() {
        WebhookAddressPolicy policy = new WebhookAddressPolicy(WebhookAllowList.parse("127.0.0.1,[::1]"), resolver);
        assertTrue(policy.check("http://127.0.0.1:8080/hook").allowed());
        assertTrue(policy.check("http://[::1]:8080/hook").allowed());
        assertTrue(policy.check("http://[::ffff:127.0.0.1]/").allowed());
        assertTrue(policy.check("http://localhost/").allowed(), "both addresses of localhost are listed");
        assertFalse(policy.check("http://127.0.0.2/").allowed());
        assertFalse(policy.check("http://10.0.0.1/").allowed());
    }

    @Test
    void anAllowListedBlockAllowsTheAddressesInside() {
        WebhookAddressPolicy policy = new WebhookAddressPolicy(
                WebhookAllowList.parse("127.0.0.0/8, 10.0.0.0/24, fd00::/8"),
                resolver);
        assertTrue(policy.check("http://127.3.2.1/").allowed());
        assertTrue(policy.check("http://10.0.0.250/").allowed());
        assertTrue(policy.check("http://mixed.example/").allowed(), "93.184.216.34 is public, 10.0.0.7 listed");
        assertTrue(policy.check("http://ula.example/").allowed());
        assertTrue(policy.check("http://2130706433/").allowed(), "denotes 127.0.0.1");
        assertFalse(policy.check("http://10.0.1.1/").allowed());
        assertFalse(policy.check("http://192.168.0.1/").allowed());
        assertFalse(policy.check("http://localhost/").allowed(), "::1 is outside every listed block");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.0/33", "::1/129", "nonsense/8", "10.0.0.0/", "10.0.0.0/-1", "300.1.1.1/8"})
    void aMistypedBlockFailsLoudly(String entry) {
        assertThrows(IllegalArgumentException.class, () -> WebhookAllowList.parse("localhost," + entry));
    }

    @Test
    void literalsNeverReachTheResolver() {
        strict.check("http://127.0.0.1/");
        strict.check("http://[::1]/");
        strict.check("http://8.8.8.8/");
        strict.check("http://0x7f.0.0.1/");
        assertEquals(List.of(), lookups);
    }

    @ParameterizedTest
    @CsvSource({
            "2002:7f00:1::, a 6to4 form of a loopback address",
            "2002:a00:1:1::1, a 6to4 form of a private address",
            "2002:a9fe:a9fe::, a 6to4 form of a link-local address",
            // Teredo clients: 127.0.0.1 and 10.0.0.1 inverted in the last 32 bits
            "2001:0:4136:e378:8000:63bf:80ff:fffe, a Teredo form of a loopback address",
            "2001:0:4136:e378:8000:63bf:f5ff:fffe, a Teredo form of a private address",
            // a Teredo server on the private network (client 8.8.8.8)
            "2001:0:a00:1::f7f7:f7f7, a Teredo address whose server is a private address"})
    void sixToFourAndTeredoAddressesAreJudgedByTheIpv4AddressTheyCarry(String literal, String kind) {
        WebhookAddressPolicy.Verdict v = strict.check("http://[" + literal + "]/hook");
        assertFalse(v.allowed(), literal);
        assertTrue(v.refusal().contains(kind), v.refusal());
    }

    @ParameterizedTest
    @ValueSource(strings = {"2002:808:808::1", "2001:0:4136:e378:8000:63bf:f7f7:f7f7"})
    void sixToFourAndTeredoFormsOfPublicAddressesAreAllowed(String literal) {
        assertTrue(strict.check("http://[" + literal + "]/hook").allowed(), literal);
    }
}
