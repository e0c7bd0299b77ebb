package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.dispatch.control.DatabaseClock;
import dev.triggeroutbox.dispatch.control.DispatchSettings;
import dev.triggeroutbox.dispatch.entity.ClaimedRow;
import dev.triggeroutbox.dispatch.entity.DeliveryResult;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;

/**
 * Delivers to an HTTP endpoint: the trigger's target is the URL, the row's payload the JSON body.
 * One HTTP client serves every delivery and runs on the server's managed executor, so a slow
 * endpoint holds a connection, never a thread.
 */
@ApplicationScoped
public class WebhookTarget implements DeliveryTarget {

    private static final Logger LOG = Logger.getLogger(WebhookTarget.class.getName());

    @Inject
    WebhookSettings settings;

    @Inject
    DatabaseClock databaseClock;

    @Inject
    DispatchSettings dispatch;

    @Resource
    ManagedExecutorService executor;

    private WebhookSender sender;

    @PostConstruct
    void open() {
        // an open circuit never waits longer than the backoff would have
        long maxOpen = Math.min(settings.circuitMaxOpenMillis(),
                Math.max(WebhookCircuits.FIRST_OPEN_MILLIS, dispatch.backoffCapMillis()));
        WebhookCircuits circuits = new WebhookCircuits(settings.circuitFailures(), maxOpen,
                settings.timeout().plus(settings.connectTimeout()).toMillis(), System::nanoTime,
                bound -> ThreadLocalRandom.current().nextLong(bound));
        sender = new WebhookSender(WebhookSender.client(settings.connectTimeout(), executor),
                settings.addressPolicy(), settings.timeout(), settings.connectTimeout(), executor,
                databaseClock.clock(), // the signed timestamp is the database's time, whatever this node's clock says
                circuits);
        if (ForkJoinPool.getCommonPoolParallelism() < 2) {
            // the JDK client hands every response to CompletableFuture's default executor, which is a new
            // thread per task when the common pool has fewer than two threads (on one or two CPUs)
            LOG.warning("the JVM's common fork-join pool has " + ForkJoinPool.getCommonPoolParallelism()
                    + " thread(s), so the HTTP client starts a thread for every webhook answer; start the server with"
                    + " -Djava.util.concurrent.ForkJoinPool.common.parallelism=2 (JAVA_OPTS) for faster webhooks (the JDK"
                    + " client alone: about 3x the requests/s on 2 CPUs)");
        }
    }

    @Override
    public String type() {
        return "webhook";
    }

    @Override
    public CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout) {
        return sender.send(row, timeout);
    }
}
