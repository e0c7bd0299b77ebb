package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.targets.entity.DispatchLimits;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The dispatcher's knobs (MicroProfile Config; OUTBOX_* environment variables work too). Each one
 * is documented with its default and its extremes in the README's configuration table.
 */
@ApplicationScoped
public class DispatchSettings {

    private static final Logger LOG = Logger.getLogger(DispatchSettings.class.getName());

    @Inject
    @ConfigProperty(name = "outbox.node-name")
    Optional<String> nodeName;

    @Inject
    @ConfigProperty(name = "outbox.dispatch.enabled", defaultValue = "true")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "outbox.dispatch.poll-interval-ms", defaultValue = "1000")
    long pollIntervalMillis;

    @Inject
    @ConfigProperty(name = "outbox.dispatch.batch-size", defaultValue = "500")
    int batchSize;

    /**
     * Rows in flight per node (permits): claimed and not yet finished. At least four batches by default, so that
     * one app alone, held to half of it, still has two claims' worth of rows in flight while the next is claimed.
     */
    @Inject
    @ConfigProperty(name = "outbox.dispatch.concurrency", defaultValue = "2000")
    int concurrency;

    /**
     * Most deliveries of one app under way on this node at once (a row counts from its claim until its delivery
     * ends; waiting to be finished it holds only its permit); {@code 0} (the default) means half of
     * {@code outbox.dispatch.concurrency}. An app at its share is passed over by the claim until some of its
     * deliveries end, so one app's slow receiver holds at most this many permits and the others keep the
     * rest. Equal to the concurrency: no share at all (one app may take every permit).
     */
    @Inject
    @ConfigProperty(name = "outbox.dispatch.app-max-in-flight", defaultValue = "0")
    int appMaxInFlight;

    /**
     * Most deliveries of one trigger in flight on this node at once; {@code 0} (the default) means the
     * app's share. Lower it (e.g. to half of the app's share) so that one slow target of an app leaves the
     * app's other triggers room; below two batches a lone fast trigger is claimed in smaller batches.
     */
    @Inject
    @ConfigProperty(name = "outbox.dispatch.trigger-max-in-flight", defaultValue = "0")
    int triggerMaxInFlight;

    @Inject
    @ConfigProperty(name = "outbox.dispatch.lease-ms", defaultValue = "60000")
    long leaseMillis;

    @Inject
    @ConfigProperty(name = "outbox.delivery.timeout-ms", defaultValue = "30000")
    long deliveryTimeoutMillis;

    @Inject
    @ConfigProperty(name = "outbox.retry.max-attempts", defaultValue = "10")
    int maxAttempts;

    @Inject
    @ConfigProperty(name = "outbox.retry.backoff-base-ms", defaultValue = "1000")
    long backoffBaseMillis;

    @Inject
    @ConfigProperty(name = "outbox.retry.backoff-cap-ms", defaultValue = "3600000")
    long backoffCapMillis;

    /**
     * How long a node that is stopping (undeploy, redeploy, server shutdown) waits for the deliveries it
     * has in flight to end, so that each is finished with its result instead of coming back after its
     * lease and being delivered twice. Rows it claimed but never started are given back at once (attempt
     * not spent). Deliveries still running when the grace ends are cut short and rescheduled (their attempt
     * is spent; the target may have received them). Longer: slower shutdowns, fewer cut deliveries; keep it
     * above {@code outbox.webhook.timeout-ms} so every webhook ends by itself, and within what the process
     * manager allows a stop (Kubernetes: 30 s). {@code 0}: cut every running delivery at once.
     */
    @Inject
    @ConfigProperty(name = "outbox.dispatch.shutdown-grace-ms", defaultValue = "15000")
    long shutdownGraceMillis;

    /**
     * Whether a commit that enqueued notifies every node, so that the dispatchers start at once instead of at
     * their next poll: after the commit this node's {@link CommitNotifier} sends one PostgreSQL {@code NOTIFY}
     * for all the commits since its last one, and a node that dispatches listens for it on a connection of its
     * own (one of the pool's, held while the node runs). {@code false}: a commit wakes only its own node, and
     * rows committed on a node that does not dispatch wait for another node's poll (up to
     * {@code outbox.dispatch.poll-interval-ms}); no node sends notifications or holds a listening connection.
     * Set it alike on every node.
     */
    @Inject
    @ConfigProperty(name = "outbox.dispatch.notify", defaultValue = "true")
    boolean notify;

    /**
     * The least time between two notifications from this node: a commit after a quiet spell is told at once,
     * and the commits during the interval after a notification share the next one. It bounds what telling the
     * other nodes costs PostgreSQL (each {@code NOTIFY} is a transaction that takes the database-wide notify lock
     * and wakes every listening connection) to one per interval however fast producers commit, at the price of at
     * most this much more wait before another node hears of a commit. {@code 0}: one notification per round trip
     * of the notifier, as fast as commits come (docs/BENCHMARKS.md#notify-interval measures both).
     */
    @Inject
    @ConfigProperty(name = "outbox.dispatch.notify-interval-ms", defaultValue = "5")
    long notifyIntervalMillis;

    private String node;
    private RetryPolicy retryPolicy;
    private int appShare;
    private int triggerShare;

    @PostConstruct
    void check() {
        require(pollIntervalMillis >= 10, "outbox.dispatch.poll-interval-ms must be at least 10");
        require(batchSize >= 1 && batchSize <= 10_000, "outbox.dispatch.batch-size must be 1..10000");
        require(concurrency >= 1, "outbox.dispatch.concurrency must be at least 1");
        require(appMaxInFlight >= 0 && appMaxInFlight <= concurrency,
                "outbox.dispatch.app-max-in-flight must be 0 (half the concurrency) or 1..outbox.dispatch.concurrency");
        appShare = appMaxInFlight == 0 ? Math.max(1, concurrency / 2) : appMaxInFlight;
        require(triggerMaxInFlight >= 0 && triggerMaxInFlight <= appShare,
                "outbox.dispatch.trigger-max-in-flight must be 0 (the app's share) or 1..the app's share");
        triggerShare = triggerMaxInFlight == 0 ? appShare : triggerMaxInFlight;
        require(deliveryTimeoutMillis >= 1, "outbox.delivery.timeout-ms must be at least 1");
        // A delivery may run until its timeout; the lease must outlast that, or every slow delivery would
        // be fenced and delivered again by another node.
        require(leaseMillis > deliveryTimeoutMillis,
                "outbox.dispatch.lease-ms must be greater than outbox.delivery.timeout-ms");
        require(notifyIntervalMillis >= 0 && notifyIntervalMillis <= 1_000,
                "outbox.dispatch.notify-interval-ms must be 0..1000");
        require(shutdownGraceMillis >= 0, "outbox.dispatch.shutdown-grace-ms must be 0 or more");
        require(maxAttempts >= 1 && maxAttempts <= 1000, "outbox.retry.max-attempts must be 1..1000");
        retryPolicy = new RetryPolicy(backoffBaseMillis, backoffCapMillis,
                bound -> ThreadLocalRandom.current().nextLong(bound));
        node = nodeName.filter(n -> !n.isBlank()).orElseGet(DispatchSettings::defaultNodeName);
        LOG.info(() -> "outbox dispatcher settings: node=" + node + " poll=" + pollIntervalMillis + "ms batch="
                + batchSize + " concurrency=" + concurrency + " perApp=" + appShare + " perTrigger=" + triggerShare
                + " lease=" + leaseMillis + "ms timeout="
                + deliveryTimeoutMillis + "ms maxAttempts=" + maxAttempts + " notify=" + notify + " notifyInterval="
                + notifyIntervalMillis + "ms");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }

    private static String defaultNodeName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        // host:pid, so that two servers on one machine are two nodes
        return host + ":" + ManagementFactory.getRuntimeMXBean().getPid();
    }

    public String nodeName() {
        return node;
    }

    public boolean enabled() {
        return enabled;
    }

    /** Whether commits notify every node, and dispatching nodes listen. */
    public boolean notifyOnCommit() {
        return notify;
    }

    /** The least time between two notifications from this node (0: none). */
    public long notifyIntervalMillis() {
        return notifyIntervalMillis;
    }

    public long pollIntervalMillis() {
        return pollIntervalMillis;
    }

    public int batchSize() {
        return batchSize;
    }

    public int concurrency() {
        return concurrency;
    }

    /** Most deliveries of one app in flight on this node. */
    public int appShare() {
        return appShare;
    }

    /** Most deliveries of one trigger in flight on this node. */
    public int triggerShare() {
        return triggerShare;
    }

    public long leaseMillis() {
        return leaseMillis;
    }

    /**
     * How long after its claim a row's delivery may run at most: the lease less a margin for the
     * finishing transaction, so a result is never fenced merely because deliveries queued.
     */
    public long finishWithinMillis() {
        return Math.max(deliveryTimeoutMillis, leaseMillis - Math.min(5_000, leaseMillis / 4));
    }

    /** How long a stopping node waits for its deliveries in flight. */
    public long shutdownGraceMillis() {
        return shutdownGraceMillis;
    }

    public long deliveryTimeoutMillis() {
        return deliveryTimeoutMillis;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** The longest delay the backoff gives between two attempts. */
    public long backoffCapMillis() {
        return backoffCapMillis;
    }

    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** What the delivery targets are told of this dispatcher. */
    @Produces
    DispatchLimits limits() {
        return new DispatchLimits(concurrency, backoffCapMillis);
    }
}
