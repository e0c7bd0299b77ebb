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

    private WebhookAddressPolicy addressPolicy;

    @PostConstruct
    void check() {
        require(timeoutMillis >= 1, "outbox.webhook.timeout-ms must be at least 1");
        require(connectTimeoutMillis >= 1, "outbox.webhook.connect-timeout-ms must be at least 1");
        require(circuitFailures >= 0, "outbox.webhook.circuit-failures must be 0 (no circuit breaker) or more");
        require(circuitMaxOpenMillis >= WebhookCircuits.FIRST_OPEN_MILLIS,
                "outbox.webhook.circuit-max-open-ms must be at least " + WebhookCircuits.FIRST_OPEN_MILLIS);
        WebhookAllowList allowList;
        try {
            allowList = WebhookAllowList.parse(allowedHosts.orElse(""));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("outbox.webhook.allowed-hosts: " + e.getMessage(), e);
        }
        addressPolicy = new WebhookAddressPolicy(allowList, InetAddress::getAllByName);
        LOG.info(() -> "outbox webhook settings: timeout=" + timeoutMillis + "ms connectTimeout="
                + connectTimeoutMillis + "ms circuitFailures=" + circuitFailures + " circuitMaxOpen="
                + circuitMaxOpenMillis + "ms allowed " + allowList);
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

    /** Deliveries in a row that could not reach an origin before its circuit opens (0: no circuit breaker). */
    public int circuitFailures() {
        return circuitFailures;
    }

    public long circuitMaxOpenMillis() {
        return circuitMaxOpenMillis;
    }

    /** The SSRF guard: whether a URL may be a webhook target (checked at registration and at each delivery). */
    public WebhookAddressPolicy addressPolicy() {
        return addressPolicy;
    }
}
