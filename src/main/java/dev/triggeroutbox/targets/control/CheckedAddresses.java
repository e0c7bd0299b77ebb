package dev.triggeroutbox.targets.control;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

/**
 * How the webhook client finds the addresses of a new connection: through {@link HostResolver} (a lookup
 * of its own, off the client's threads), then through the address policy, so that a connection goes only
 * to addresses the policy judged just now. A name cannot pass the check with one answer and connect with
 * another (DNS rebinding): there is no second lookup.
 */
final class CheckedAddresses implements SocketAddressResolver {

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

    @Override
    public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        String normalized = WebhookAllowList.normalizeHost(host);
        WebhookAddressPolicy.Verdict verdict = policy.checkHost(null, normalized);
        if (!verdict.allowed()) {
            promise.failed(new Refused(verdict.refusal()));
            return;
        }
        Optional<? extends InetAddress> literal = normalized.indexOf(':') >= 0 ? AddressRange.literal(normalized)
                : Ipv4Forms.dottedQuad(normalized);
        if (literal.isPresent()) { // an address, judged above: nothing to look up
            promise.succeeded(List.of(new InetSocketAddress(literal.get(), port)));
            return;
        }
        dns.resolve(normalized).whenComplete((found, e) -> {
            if (e != null) {
                promise.failed(e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e);
                return;
            }
            if (verdict.lookup() != null) {
                WebhookAddressPolicy.Verdict judged = policy.judgeLookup(verdict, found);
                if (!judged.allowed()) {
                    promise.failed(new Refused(judged.refusal()));
                    return;
                }
            }
            List<InetSocketAddress> addresses = new ArrayList<>(found.length);
            for (InetAddress a : found) {
                addresses.add(new InetSocketAddress(a, port));
            }
            promise.succeeded(addresses);
        });
    }
}
