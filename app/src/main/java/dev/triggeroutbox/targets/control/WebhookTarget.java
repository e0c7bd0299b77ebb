package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.platform.DatabaseClock;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import dev.triggeroutbox.targets.entity.DispatchLimits;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Delivers to an HTTP endpoint: the trigger's target is the URL, the row's payload the JSON body.
 * One non-blocking HTTP client ({@link WebhookClient}, on Netty bundled in the WAR) serves every delivery on
 * event loops of its own, and host names are resolved on a few more threads; all of them come from the server's
 * managed thread factory, none from the server's shared executor. A slow endpoint holds a connection, never a thread.
 */
@ApplicationScoped
public class WebhookTarget implements DeliveryTarget {

    /** Lookups that may hang at once (one per host) before further hosts wait for a thread. */
    static final int RESOLVER_THREADS = 8;
    static final int RESOLVED_HOSTS = 1_000;
    static final long RESOLVED_TTL_MILLIS = 30_000;
    static final long UNRESOLVED_TTL_MILLIS = 2_000;
    /** How often deliveries waiting past their deadline for a hung origin are given back. */
    static final long SWEEP_MILLIS = 250;

    @Inject
    WebhookSettings settings;

    @Inject
    DatabaseClock databaseClock;

    @Inject
    DispatchLimits dispatch;

    @Resource
    ManagedThreadFactory threadFactory;

    private ThreadPoolExecutor resolverThreads;
    private WebhookClient client;
    private WebhookSender sender;

    @PostConstruct
    void open() {
        // an open circuit never waits longer than the backoff would have
        long maxOpen = Math.min(settings.circuitMaxOpenMillis(),
                Math.max(WebhookCircuits.FIRST_OPEN_MILLIS, dispatch.backoffCapMillis()));
        WebhookCircuits circuits = new WebhookCircuits(settings.circuitFailures(), maxOpen,
                settings.timeout().plus(settings.connectTimeout()).toMillis(), System::nanoTime,
                bound -> ThreadLocalRandom.current().nextLong(bound));
        resolverThreads = new ThreadPoolExecutor(RESOLVER_THREADS, RESOLVER_THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), threadFactory);
        resolverThreads.allowCoreThreadTimeOut(true);
        HostResolver dns = new HostResolver(InetAddress::getAllByName, resolverThreads, RESOLVED_HOSTS,
                RESOLVED_TTL_MILLIS, UNRESOLVED_TTL_MILLIS, System::nanoTime);
        // an origin that answers fast may have as many exchanges in flight as the node has deliveries
        int maxConnections = Math.max(settings.connectionsPerOrigin(), dispatch.concurrency());
        client = new WebhookClient(settings.connectTimeout(), WebhookSender.IDLE_MILLIS, WebhookSender.REPLY_BYTES,
                new CheckedAddresses(settings.addressPolicy(), dns), threadFactory, null);
        sender = new WebhookSender(client, settings.addressPolicy(), settings.timeout(), settings.connectTimeout(),
                databaseClock.clock(), // the signed timestamp is the database's time, whatever this node's clock says
                circuits, new OriginGate(settings.connectionsPerOrigin(), maxConnections, System::nanoTime));
        sender.sweepEvery(SWEEP_MILLIS);
    }

    @PreDestroy
    void close() {
        client.close(); // deliveries in flight fail; their rows come back after the lease
        resolverThreads.shutdownNow();
    }

    @Override
    public String type() {
        return "webhook";
    }

    @Override
    public CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout) {
        return sender.send(row, timeout);
    }

    /** The circuit of {@code url}'s origin on this node: {@code closed}, {@code open} or {@code half_open}. */
    public String circuit(String url) {
        return sender == null ? "closed" : sender.circuit(url);
    }

    @Override
    public Map<UUID, Integer> rooms() {
        return sender.rooms();
    }

    @Override
    public int stopStarting() {
        return sender.stopStarting();
    }
}
