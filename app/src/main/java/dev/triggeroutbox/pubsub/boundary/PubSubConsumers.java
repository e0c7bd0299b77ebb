package dev.triggeroutbox.pubsub.boundary;

import dev.triggeroutbox.platform.ServerObjects;
import dev.triggeroutbox.pubsub.control.TopicMappings;
import dev.triggeroutbox.pubsub.control.TopicReceiver;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.naming.NamingException;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The {@code pubsub} source: one consumer per configured topic → app mapping, each on a managed
 * thread of its own (no MDB: the WAR must deploy on servers without messaging, and the EE container
 * allows no message listeners). Each consumer loops over {@link TopicReceiver} steps; while the
 * factory or topic is not (yet) bound, or the broker or database fails, it waits and tries again,
 * logging once per outage. Undeploying stops the loops and waits for the step in flight.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrations")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class PubSubConsumers {

    private static final Logger LOG = Logger.getLogger(PubSubConsumers.class.getName());
    private static final long WAIT_MILLIS = 1_000;
    private static final long RETRY_MIN_MILLIS = 500;
    private static final long RETRY_MAX_MILLIS = 5_000;

    @Inject
    @ConfigProperty(name = "outbox.pubsub.topics")
    Optional<String> topics;

    @Inject
    @ConfigProperty(name = "outbox.pubsub.connection-factory", defaultValue = "java:/JmsXA")
    String factoryName;

    @Inject
    @ConfigProperty(name = "outbox.pubsub.batch-size", defaultValue = "100")
    int batchSize;

    @Inject
    TopicReceiver receiver;

    @Resource
    ManagedThreadFactory threadFactory;

    private final CountDownLatch stopping = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();
    private final Set<TopicMappings.Subscription> consuming = ConcurrentHashMap.newKeySet();

    @PostConstruct
    void start() {
        List<TopicMappings.Subscription> subscriptions;
        try {
            subscriptions = TopicMappings.parse(topics.orElse(""));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("outbox.pubsub.topics: " + e.getMessage(), e);
        }
        if (batchSize < 1) {
            throw new IllegalStateException("outbox.pubsub.batch-size must be at least 1");
        }
        for (TopicMappings.Subscription s : subscriptions) {
            Thread t = threadFactory.newThread(() -> consume(s));
            t.setName("outbox-pubsub " + s.topic());
            threads.add(t);
            t.start();
        }
        if (!subscriptions.isEmpty()) {
            LOG.info(() -> "outbox pubsub: consuming " + subscriptions + " through " + factoryName);
        }
    }

    /** The topics (JNDI names) whose subscription is in place and whose last step succeeded. */
    public Set<String> consumingTopics() {
        return consuming.stream().map(TopicMappings.Subscription::topic).collect(Collectors.toSet());
    }

    @PreDestroy
    void stop() {
        stopping.countDown();
        for (Thread t : threads) {
            try {
                t.join(WAIT_MILLIS * 5);
                if (t.isAlive()) {
                    t.interrupt();
                    t.join(WAIT_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void consume(TopicMappings.Subscription s) {
        String problem = null;
        long retry = RETRY_MIN_MILLIS;
        while (stopping.getCount() > 0) {
            try {
                ConnectionFactory factory = lookup(factoryName, ConnectionFactory.class,
                        "no JMS connection factory is bound at " + factoryName + " (outbox.pubsub.connection-factory)");
                Topic topic = lookup(s.topic(), Topic.class, "no topic is bound at " + s.topic() + " (yet)");
                receiver.receive(s, factory, topic, batchSize, WAIT_MILLIS);
                consuming.add(s);
                if (problem != null) {
                    LOG.info(() -> "outbox pubsub: consuming " + s + " again");
                    problem = null;
                    retry = RETRY_MIN_MILLIS;
                }
                continue;
            } catch (Unbound e) {
                problem = report(problem, s, e.getMessage() + ": waiting for it", null);
            } catch (Exception e) {
                problem = report(problem, s, "a step failed and was rolled back; the broker redelivers", e);
            }
            consuming.remove(s);
            if (sleep(retry)) {
                return;
            }
            retry = Math.min(retry * 2, RETRY_MAX_MILLIS);
        }
    }

    /** A factory or topic not bound (yet): the consumer waits for it. */
    private static final class Unbound extends Exception {
        private static final long serialVersionUID = 1L;

        Unbound(String message) {
            super(message, null, false, false);
        }
    }

    private static <T> T lookup(String name, Class<T> type, String missing) throws Unbound {
        try {
            return ServerObjects.lookup(name, type);
        } catch (NamingException e) {
            throw new Unbound(missing);
        }
    }

    /** Logs a problem when it is new (not on every retry); returns it as the current one. */
    private static String report(String previous, TopicMappings.Subscription s, String problem, Exception e) {
        if (!problem.equals(previous)) {
            LOG.log(Level.WARNING, "outbox pubsub " + s + ": " + problem + (e == null ? "" : " (" + e + ")"));
        }
        return problem;
    }

    /** Waits, or returns true at once when stopping. */
    private boolean sleep(long millis) {
        try {
            return stopping.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
