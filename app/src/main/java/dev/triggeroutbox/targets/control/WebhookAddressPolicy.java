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
 * allow-list pass whatever they resolve to. Checked when a trigger is registered ({@link #check}, which
 * resolves the name itself) and again at delivery, in two steps: {@link #checkUrl} before each send (no
 * DNS), and {@link #judgeLookup} on the addresses the client is about to connect to ({@link CheckedAddresses}),
 * so that the addresses judged are the ones connected to.
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
     * {@code lookup} is the host name whose addresses are still to be judged ({@link #judgeLookup}), null
     * when the decision needs no DNS (a literal address, an allow-listed name, a refusal).
     */
    public record Verdict(URI uri, String refusal, boolean unresolved, String lookup) {

        public boolean allowed() {
            return refusal == null;
        }

        static Verdict allow(URI uri) {
            return new Verdict(uri, null, false, null);
        }

        static Verdict refuse(String refusal) {
            return new Verdict(null, refusal, false, null);
        }
    }

    private final WebhookAllowList allowList;
    private final Resolver resolver;

    public WebhookAddressPolicy(WebhookAllowList allowList, Resolver resolver) {
        this.allowList = allowList;
        this.resolver = resolver;
    }

    /** The whole check, resolving the host name (blocking) when the decision needs its addresses. */
    public Verdict check(String url) {
        Verdict v = checkUrl(url);
        if (v.lookup() == null) {
            return v;
        }
        InetAddress[] resolved;
        try {
            resolved = resolver.resolve(v.lookup());
        } catch (UnknownHostException | SecurityException e) {
            resolved = null;
        }
        return judgeLookup(v, resolved);
    }

    /**
     * Everything of the check that needs no DNS: the URL's form, allow-listed names, literal and numeric
     * addresses. When the host is a name to resolve, the verdict allows the URL for now and names it in
     * {@link Verdict#lookup()}: its addresses must pass {@link #judgeLookup} before a connection uses them.
     */
    public Verdict checkUrl(String url) {
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
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.isOpaque()) {
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
        return checkHost(uri, WebhookAllowList.normalizeHost(uri.getHost()));
    }

    /** {@link #checkUrl} for a host alone (as a client names it when it opens a connection). */
    Verdict checkHost(URI uri, String host) {
        if (allowList.allowsName(host)) {
            return Verdict.allow(uri);
        }
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
        return new Verdict(uri, null, false, host);
    }

    /**
     * Judges the addresses {@code pending}'s host resolved to (null or none: it did not resolve, which may
     * pass on a later try). Allowed when every address is public or allow-listed.
     */
    Verdict judgeLookup(Verdict pending, InetAddress[] resolved) {
        String host = pending.lookup();
        if (resolved == null || resolved.length == 0) {
            return new Verdict(null, "host " + host + " cannot be resolved", true, null);
        }
        return judge(pending.uri(), host, "resolves to", List.of(resolved));
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
