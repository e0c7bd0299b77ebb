package dev.triggeroutbox.targets.control;

import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads the numeric IPv4 spellings that resolvers accept besides a.b.c.d: one to four parts
 * ({@code 2130706433}, {@code 127.1}), each in decimal, octal with a leading 0 ({@code 0177}) or hex
 * ({@code 0x7f}), as BSD {@code inet_aton} does. A part with a leading zero is ambiguous (inet_aton reads
 * octal, older Java and some libraries decimal), so the policy judges every reading: these forms are a
 * classic way to smuggle a loopback address past a check that only looks for {@code 127.}.
 */
final class Ipv4Forms {

    private static final Pattern PART = Pattern.compile("0[xX][0-9a-fA-F]+|[0-9]+");

    private Ipv4Forms() {
    }

    /** The address of a canonical dotted-quad (four decimal parts, no leading zeros), or empty. */
    static Optional<Inet4Address> dottedQuad(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        long[] values = new long[4];
        for (int i = 0; i < 4; i++) {
            if (!parts[i].matches("0|[1-9][0-9]{0,2}")) {
                return Optional.empty();
            }
            values[i] = Long.parseLong(parts[i]);
        }
        return Optional.ofNullable(combine(values));
    }

    /** Every IPv4 address the host may denote when read as a number; empty when it is not numeric. */
    static List<Inet4Address> readings(String host) {
        String[] parts = host.split("\\.", -1);
        if (parts.length > 4) {
            return List.of();
        }
        for (String part : parts) {
            if (!PART.matcher(part).matches()) {
                return List.of();
            }
        }
        List<Inet4Address> readings = new ArrayList<>(2);
        add(readings, read(parts, true));
        add(readings, read(parts, false));
        return readings;
    }

    private static void add(List<Inet4Address> readings, Inet4Address address) {
        if (address != null && !readings.contains(address)) {
            readings.add(address);
        }
    }

    /** One reading: {@code octal} reads a leading 0 as octal (inet_aton), otherwise as decimal. */
    private static Inet4Address read(String[] parts, boolean octal) {
        long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            Long value = value(parts[i], octal);
            if (value == null) {
                return null;
            }
            values[i] = value;
        }
        return combine(values);
    }

    private static Long value(String part, boolean octal) {
        try {
            if (part.length() > 2 && (part.startsWith("0x") || part.startsWith("0X"))) {
                return Long.parseLong(part.substring(2), 16);
            }
            if (octal && part.length() > 1 && part.startsWith("0")) {
                return Long.parseLong(part.substring(1), 8);
            }
            return Long.parseLong(part, 10);
        } catch (NumberFormatException e) { // 8 or 9 in an octal part, or too long for any address
            return null;
        }
    }

    /** inet_aton's layouts: a = 32 bits; a.b = 8.24; a.b.c = 8.8.16; a.b.c.d = 8.8.8.8. */
    private static Inet4Address combine(long[] values) {
        int last = values.length - 1;
        long address = 0;
        for (int i = 0; i < last; i++) {
            if (values[i] > 0xff) {
                return null;
            }
            address |= values[i] << (24 - 8 * i);
        }
        long lastBits = 32 - 8L * last;
        if (values[last] >= 1L << lastBits) {
            return null;
        }
        address |= values[last];
        return AddressRange.ipv4(new byte[] {(byte) (address >>> 24), (byte) (address >>> 16),
                (byte) (address >>> 8), (byte) address});
    }
}
