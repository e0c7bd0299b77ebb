package dev.triggeroutbox.targets.control;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;

/**
 * Tells addresses of the public internet from those that reach this server, its network or nothing
 * routable (loopback, private, link-local, ...). A webhook must not be a way to make the server call
 * its own admin ports, the cloud metadata service (169.254.169.254) or a neighbour on the private network.
 */
final class AddressScope {

    private record Block(AddressRange range, String kind) {
    }

    private static final List<Block> IPV4 = List.of(
            block("0.0.0.0/8", "an unspecified (this-network) address"),
            block("127.0.0.0/8", "a loopback address"),
            block("10.0.0.0/8", "a private address"),
            block("172.16.0.0/12", "a private address"),
            block("192.168.0.0/16", "a private address"),
            block("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
            block("169.254.0.0/16", "a link-local address"),
            block("192.0.0.0/24", "an IETF protocol-assignment address"),
            block("198.18.0.0/15", "a benchmarking-network address"),
            block("224.0.0.0/4", "a multicast address"),
            block("240.0.0.0/4", "a reserved or broadcast address"));

    private static final List<Block> IPV6 = List.of(
            block("::/128", "an unspecified address"),
            block("::1/128", "a loopback address"),
            block("fe80::/10", "a link-local address"),
            block("fec0::/10", "a site-local address"),
            block("fc00::/7", "a unique-local address"),
            block("64:ff9b:1::/48", "a local-use NAT64 address"),
            block("ff00::/8", "a multicast address"));

    // IPv6 forms that carry an IPv4 address in their last 32 bits, and reach it
    private static final List<Block> EMBEDDING_IPV4 = List.of(
            // written as bytes: the JDK turns every textual ::ffff:a.b.c.d into a plain IPv4 address
            new Block(AddressRange.of(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0, 0, 0}, 96),
                    "an IPv4-mapped form of "),
            block("::ffff:0:0:0/96", "an IPv4-translated form of "),
            block("64:ff9b::/96", "a NAT64 form of "),
            block("::/96", "an IPv4-compatible form of "));

    // 6to4: the relay sends the packet on to the IPv4 address in bits 16-47
    private static final AddressRange SIX_TO_FOUR = AddressRange.parse("2002::/16");
    // Teredo: the server's IPv4 address in bits 32-63, the client's in the last 32 bits, inverted
    private static final AddressRange TEREDO = AddressRange.parse("2001::/32");

    private AddressScope() {
    }

    private static Block block(String cidr, String kind) {
        return new Block(AddressRange.parse(cidr), kind);
    }

    /** What kind of non-public address this is ("a loopback address"), or null for a public one. */
    static String nonPublicKind(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 4) {
            return kind(IPV4, bytes);
        }
        String kind = kind(IPV6, bytes);
        if (kind != null) {
            return kind;
        }
        for (Block embedding : EMBEDDING_IPV4) {
            if (embedding.range().contains(bytes)) {
                String inner = kind(IPV4, Arrays.copyOfRange(bytes, 12, 16));
                return inner == null ? null : embedding.kind() + inner;
            }
        }
        if (SIX_TO_FOUR.contains(bytes)) {
            String inner = kind(IPV4, Arrays.copyOfRange(bytes, 2, 6));
            return inner == null ? null : "a 6to4 form of " + inner;
        }
        if (TEREDO.contains(bytes)) {
            byte[] client = Arrays.copyOfRange(bytes, 12, 16);
            for (int i = 0; i < client.length; i++) {
                client[i] = (byte) ~client[i];
            }
            String inner = kind(IPV4, client);
            String server = kind(IPV4, Arrays.copyOfRange(bytes, 4, 8));
            return inner != null
                    ? "a Teredo form of " + inner
                    : server == null ? null : "a Teredo address whose server is " + server;
        }
        return null;
    }

    private static String kind(List<Block> blocks, byte[] bytes) {
        for (Block b : blocks) {
            if (b.range().contains(bytes)) {
                return b.kind();
            }
        }
        return null;
    }
}
