package dev.triggeroutbox.targets.control;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;

/**
 * A block of addresses in CIDR form ({@code 10.0.0.0/8}, {@code fc00::/7}). An IPv4-mapped IPv6
 * address ({@code ::ffff:a.b.c.d}) is the IPv4 address it maps, so one IPv4 block covers both spellings.
 */
final class AddressRange {

    private final byte[] network;
    private final int prefix;

    private AddressRange(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
    }

    /** A block given by its first address and prefix length. */
    static AddressRange of(byte[] network, int prefix) {
        if (prefix < 0 || prefix > network.length * 8) {
            throw new IllegalArgumentException("prefix " + prefix + " does not fit " + network.length + " bytes");
        }
        return new AddressRange(network.clone(), prefix);
    }

    /** Parses {@code address/prefix} or a single address; throws {@link IllegalArgumentException} otherwise. */
    static AddressRange parse(String text) {
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        InetAddress parsed = literal(address)
                .orElseThrow(() -> new IllegalArgumentException("'" + text + "' is not an IP address or CIDR block"));
        byte[] bytes = parsed.getAddress();
        int bits = bytes.length * 8;
        int length = bits;
        if (slash >= 0) {
            String digits = text.substring(slash + 1);
            if (!digits.matches("\\d{1,3}") || Integer.parseInt(digits) > bits) {
                throw new IllegalArgumentException("'" + text + "' has a prefix length outside 0.." + bits);
            }
            length = Integer.parseInt(digits);
        }
        return new AddressRange(bytes, length);
    }

    /**
     * An IP address written as a plain literal: canonical dotted-quad IPv4 or IPv6 (brackets optional).
     * Never asks DNS.
     */
    static Optional<InetAddress> literal(String text) {
        String bare = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        if (bare.indexOf(':') < 0) {
            return Ipv4Forms.dottedQuad(bare).map(a -> (InetAddress) a);
        }
        if (bare.indexOf('%') >= 0) {
            return Optional.empty(); // a zone id names an interface of this machine, never a remote host
        }
        try {
            // brackets make the JDK treat the text as an IPv6 literal only, with no DNS lookup
            return Optional.of(unmapped(InetAddress.getByName("[" + bare + "]")));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /** The IPv4 address an IPv4-mapped IPv6 address stands for; any other address as it is. */
    static InetAddress unmapped(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length != 16) {
            return address;
        }
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return address;
            }
        }
        if (b[10] != (byte) 0xff || b[11] != (byte) 0xff) {
            return address;
        }
        return ipv4(Arrays.copyOfRange(b, 12, 16));
    }

    static Inet4Address ipv4(byte[] four) {
        try {
            return (Inet4Address) InetAddress.getByAddress(four);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("an IPv4 address has 4 bytes", e); // cannot happen for 4 bytes
        }
    }

    boolean contains(InetAddress address) {
        return contains(unmapped(address).getAddress());
    }

    boolean contains(byte[] address) {
        if (address.length != network.length) {
            return false;
        }
        int whole = prefix / 8;
        for (int i = 0; i < whole; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (address[whole] & mask) == (network[whole] & mask);
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
        } catch (UnknownHostException e) {
            return Arrays.toString(network) + "/" + prefix;
        }
    }
}
