package dev.triggeroutbox.targets.control;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The webhook target's knobs (MicroProfile Config; OUTBOX_WEBHOOK_* environment variables work too),
 * and the address policy built from the allow-list, for the target and for trigger registration alike.
 */
@ApplicationScoped
public class WebhookSettings {

    static final long MAX_SECRET_OVERLAP_MILLIS = 30L * 24 * 3600 * 1000;

    private static final Logger LOG = Logger.getLogger(WebhookSettings.class.getName());

    @Inject
    @ConfigProperty(name = "outbox.webhook.timeout-ms", defaultValue = "10000")
    long timeoutMillis;

    @Inject
    @ConfigProperty(name = "outbox.webhook.connect-timeout-ms", defaultValue = "5000")
    long connectTimeoutMillis;

    @Inject
    @ConfigProperty(name = "outbox.webhook.allowed-hosts")
    Optional<String> allowedHosts;

    @Inject
    @ConfigProperty(name = "outbox.webhook.circuit-failures", defaultValue = "5")
    int circuitFailures;

    @Inject
    @ConfigProperty(name = "outbox.webhook.circuit-max-open-ms", defaultValue = "60000")
    long circuitMaxOpenMillis;

    /**
     * Webhook exchanges in flight to one origin (scheme, host and port) on this node at first, and while it
     * answers slowly; the rest of an origin's rows wait, their time not running, and the claim leaves them in the
     * outbox while none of its connections is free. Each answer within 250 ms gives the origin one more, up to
     * {@code outbox.dispatch.concurrency}; each slower answer takes one back and each failure halves them, down to
     * this. 64 keeps a
     * burst for a slow receiver from opening a connection per row, which cost the node's CPU ahead of every other
     * app's deliveries; such a receiver, answering in {@code t} seconds, gets 64 / {@code t} rows per second per
     * node. Raise it for slow receivers that must take more; 1 starts every origin at one request at a time.
     */
    @Inject
    @ConfigProperty(name = "outbox.webhook.max-connections-per-origin", defaultValue = "64")
    int connectionsPerOrigin;

    /**
     * How long, after {@code POST …/triggers/{id}/secret}, deliveries still carry a signature by the
     * secret it replaced beside the new one (24 h by default, what webhook providers commonly give), so
     * a receiver can deploy the new secret without refusing a delivery meanwhile. Longer leaves the old
     * secret valid longer (after a leak, rotate with a short overlap); {@code 0} drops it at once, and
     * receivers still holding it refuse deliveries until they switch. Measured on the database clock;
     * at most 30 days, past which an old secret is no longer "rotated out".
     */
    @Inject
    @ConfigProperty(name = "outbox.webhook.secret-overlap-ms", defaultValue = "86400000")
    long secretOverlapMillis;

    private WebhookAddressPolicy addressPolicy;

    @PostConstruct
    void check() {
        require(timeoutMillis >= 1, "outbox.webhook.timeout-ms must be at least 1");
        require(connectTimeoutMillis >= 1, "outbox.webhook.connect-timeout-ms must be at least 1");
        require(connectionsPerOrigin >= 1, "outbox.webhook.max-connections-per-origin must be at least 1");
        require(circuitFailures >= 0, "outbox.webhook.circuit-failures must be 0 (no circuit breaker) or more");
        require(circuitMaxOpenMillis >= WebhookCircuits.FIRST_OPEN_MILLIS,
                "outbox.webhook.circuit-max-open-ms must be at least " + WebhookCircuits.FIRST_OPEN_MILLIS);
        require(secretOverlapMillis >= 0 && secretOverlapMillis <= MAX_SECRET_OVERLAP_MILLIS,
                "outbox.webhook.secret-overlap-ms must be 0 (no overlap) to " + MAX_SECRET_OVERLAP_MILLIS
                        + " (30 days)");
        WebhookAllowList allowList;
        try {
            allowList = WebhookAllowList.parse(allowedHosts.orElse(""));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("outbox.webhook.allowed-hosts: " + e.getMessage(), e);
        }
        addressPolicy = new WebhookAddressPolicy(allowList, InetAddress::getAllByName);
        LOG.info(() -> "outbox webhook settings: timeout=" + timeoutMillis + "ms connectTimeout="
                + connectTimeoutMillis + "ms circuitFailures=" + circuitFailures + " circuitMaxOpen="
                + circuitMaxOpenMillis + "ms secretOverlap=" + secretOverlapMillis + "ms allowed " + allowList);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }

    /** How long one POST may take until the response headers arrive. */
    public Duration timeout() {
        return Duration.ofMillis(timeoutMillis);
    }

    public Duration connectTimeout() {
        return Duration.ofMillis(connectTimeoutMillis);
    }

    /** Webhook exchanges in flight per origin on this node. */
    public int connectionsPerOrigin() {
        return connectionsPerOrigin;
    }

    /** Deliveries in a row that could not reach an origin before its circuit opens (0: no circuit breaker). */
    public int circuitFailures() {
        return circuitFailures;
    }

    public long circuitMaxOpenMillis() {
        return circuitMaxOpenMillis;
    }

    /** How long a rotated-out secret keeps signing beside the new one (0: not at all). */
    public long secretOverlapMillis() {
        return secretOverlapMillis;
    }

    /** The SSRF guard: whether a URL may be a webhook target (checked at registration and at each delivery). */
    public WebhookAddressPolicy addressPolicy() {
        return addressPolicy;
    }
}
