package dev.triggeroutbox.targets.control;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How the webhook client finds the addresses of a new connection: through {@link HostResolver} (a lookup
 * of its own, off the client's threads), then through the address policy, so that a connection goes only
 * to addresses the policy judged just now. A name cannot pass the check with one answer and connect with
 * another (DNS rebinding): there is no second lookup.
 */
final class CheckedAddresses {

    /** A connection refused by the address policy; its message is the policy's sentence. */
    static final class Refused extends Exception {
        Refused(String refusal) {
            super(refusal, null, false, false);
        }
    }

    private final WebhookAddressPolicy policy;
    private final HostResolver dns;

    CheckedAddresses(WebhookAddressPolicy policy, HostResolver dns) {
        this.policy = policy;
        this.dns = dns;
    }

    /**
     * The addresses a new connection to {@code host} may use, each judged by the policy; fails with {@link Refused}
     * when the policy refuses the name or what it resolves to, with the lookup's exception when it does not resolve.
     */
    CompletableFuture<List<InetSocketAddress>> resolve(String host, int port) {
        String normalized = WebhookAllowList.normalizeHost(host);
        WebhookAddressPolicy.Verdict verdict = policy.checkHost(null, normalized);
        if (!verdict.allowed()) {
            return CompletableFuture.failedFuture(new Refused(verdict.refusal()));
        }
        Optional<? extends InetAddress> literal = normalized.indexOf(':') >= 0
                ? AddressRange.literal(normalized)
                : Ipv4Forms.dottedQuad(normalized);
        if (literal.isPresent()) { // an address, judged above: nothing to look up
            return CompletableFuture.completedFuture(List.of(new InetSocketAddress(literal.get(), port)));
        }
        return dns.resolve(normalized).thenApply(found -> {
            if (verdict.lookup() != null) {
                WebhookAddressPolicy.Verdict judged = policy.judgeLookup(verdict, found);
                if (!judged.allowed()) {
                    throw new java.util.concurrent.CompletionException(new Refused(judged.refusal()));
                }
            }
            List<InetSocketAddress> addresses = new ArrayList<>(found.length);
            for (InetAddress a : found) {
                addresses.add(new InetSocketAddress(a, port));
            }
            return addresses;
        });
    }
}
