package dev.triggeroutbox.targets.control;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The operator's exceptions to the address policy ({@code outbox.webhook.allowed-hosts}): exact host
 * names, which are allowed whatever they resolve to, and IP addresses or CIDR blocks, which allow the
 * addresses inside them. Tests and on-premise setups need this to deliver to 127.0.0.1 or a private network.
 */
public final class WebhookAllowList {

    private final Set<String> names;
    private final List<AddressRange> ranges;

    private WebhookAllowList(Set<String> names, List<AddressRange> ranges) {
        this.names = names;
        this.ranges = ranges;
    }

    public static WebhookAllowList none() {
        return new WebhookAllowList(Set.of(), List.of());
    }

    /**
     * Reads a comma-separated list; blanks are skipped. Throws {@link IllegalArgumentException} for an
     * entry with a {@code /} that is not a valid CIDR block, so a typo fails the deployment instead of
     * silently allowing nothing.
     */
    public static WebhookAllowList parse(String commaSeparated) {
        Set<String> names = new HashSet<>();
        List<AddressRange> ranges = new ArrayList<>();
        if (commaSeparated != null) {
            for (String raw : commaSeparated.split(",")) {
                String entry = raw.trim();
                if (entry.isEmpty()) {
                    continue;
                }
                Optional<InetAddress> literal = AddressRange.literal(entry);
                if (entry.indexOf('/') >= 0 || literal.isPresent()) {
                    ranges.add(AddressRange.parse(entry));
                } else {
                    names.add(normalizeHost(entry));
                }
            }
        }
        return new WebhookAllowList(Set.copyOf(names), List.copyOf(ranges));
    }

    /** Host names compare case-insensitively, without IPv6 brackets and without the DNS root's trailing dot. */
    static String normalizeHost(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

    boolean allowsName(String normalizedHost) {
        return names.contains(normalizedHost);
    }

    boolean allowsAddress(InetAddress address) {
        for (AddressRange range : ranges) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "names=" + names + " ranges=" + ranges;
    }
}
