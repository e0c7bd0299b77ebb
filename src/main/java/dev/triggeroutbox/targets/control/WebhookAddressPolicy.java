package dev.triggeroutbox.targets.control;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether a webhook URL may be called (the SSRF guard). Only http(s) URLs without user info
 * whose host, and every address it resolves to, lies on the public internet; hosts and ranges on the
 * allow-list pass whatever they resolve to. Checked when a trigger is registered and again before each
 * delivery, because a name may resolve differently by then.
 */
public final class WebhookAddressPolicy {

    static final String ALLOW_HINT = "; allow it with outbox.webhook.allowed-hosts";

    /** Resolves a host name to all its addresses; {@link InetAddress#getAllByName} in production. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /**
     * The decision. {@code refusal} is a sentence for the caller, null when allowed; {@code unresolved}
     * marks a refusal only because the name did not resolve now, which may pass on a later try.
     */
    public record Verdict(URI uri, String refusal, boolean unresolved) {

        public boolean allowed() {
            return refusal == null;
        }

        static Verdict allow(URI uri) {
            return new Verdict(uri, null, false);
        }

        static Verdict refuse(String refusal) {
            return new Verdict(null, refusal, false);
        }
    }

    private final WebhookAllowList allowList;
    private final Resolver resolver;

    public WebhookAddressPolicy(WebhookAllowList allowList, Resolver resolver) {
        this.allowList = allowList;
        this.resolver = resolver;
    }

    public Verdict check(String url) {
        if (url == null || url.isBlank()) {
            return Verdict.refuse("the webhook URL is missing");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return Verdict.refuse("the webhook URL is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https")) || uri.isOpaque()) {
            return Verdict.refuse("the webhook URL must be an http or https URL");
        }
        if (uri.getRawUserInfo() != null) {
            return Verdict.refuse("the webhook URL must not contain user info (user:password@)");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            // java.net.URI takes no host from 127.1 or 0x7f.0.0.1; other parsers do, so say what they denote
            Verdict numeric = judgeNumeric(uri, uri.getRawAuthority());
            return numeric.allowed() ? Verdict.refuse("the webhook URL has no valid host") : numeric;
        }
        String host = WebhookAllowList.normalizeHost(uri.getHost());
        if (allowList.allowsName(host)) {
            return Verdict.allow(uri);
        }
        return checkAddresses(uri, host);
    }

    private Verdict checkAddresses(URI uri, String host) {
        if (host.indexOf(':') >= 0 || host.indexOf('%') >= 0) {
            Optional<InetAddress> literal = AddressRange.literal(host);
            if (literal.isEmpty()) {
                return Verdict.refuse("host " + host + " is not a valid IPv6 address without a zone");
            }
            return judge(uri, host, "resolves to", List.of(literal.get()));
        }
        Optional<? extends InetAddress> quad = Ipv4Forms.dottedQuad(host);
        if (quad.isPresent()) {
            return judge(uri, host, "resolves to", List.of(quad.get()));
        }
        Verdict numeric = judgeNumeric(uri, host);
        if (!numeric.allowed()) {
            return numeric;
        }
        InetAddress[] resolved;
        try {
            resolved = resolver.resolve(host);
        } catch (UnknownHostException | SecurityException e) {
            resolved = null;
        }
        if (resolved == null || resolved.length == 0) {
            return new Verdict(null, "host " + host + " cannot be resolved", true);
        }
        return judge(uri, host, "resolves to", List.of(resolved));
    }

    /** Judges the addresses a numeric host spelling may denote (none for a name). */
    private Verdict judgeNumeric(URI uri, String authority) {
        String host = authority == null ? "" : WebhookAllowList.normalizeHost(authority.replaceFirst(":\\d*$", ""));
        return judge(uri, host, "can be read as", Ipv4Forms.readings(host));
    }

    /** Allows the URI when every address is public or allow-listed. */
    private Verdict judge(URI uri, String host, String verb, List<? extends InetAddress> addresses) {
        for (InetAddress raw : addresses) {
            InetAddress address = AddressRange.unmapped(raw);
            if (allowList.allowsAddress(address)) {
                continue;
            }
            String kind = AddressScope.nonPublicKind(raw);
            if (kind != null) {
                String text = raw.getHostAddress();
                String shown = text.equalsIgnoreCase(host) ? "" : " (" + text + ")";
                return Verdict.refuse("host " + host + " " + verb + " " + kind + shown + ALLOW_HINT);
            }
        }
        return Verdict.allow(uri);
    }
}
