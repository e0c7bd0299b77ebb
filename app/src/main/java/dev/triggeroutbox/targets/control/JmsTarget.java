package dev.triggeroutbox.targets.control;

import dev.triggeroutbox.platform.ServerObjects;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.targets.entity.ClaimedRow;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.naming.NameNotFoundException;
import javax.naming.NamingException;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Delivers to a queue or topic of the server's broker: the trigger's target is the destination's JNDI
 * name, the row's payload the body of a {@link TextMessage}, where it came from the message's
 * properties. Sent synchronously (a persistent send returns when the broker has the message) on one of
 * the {@link DeliveryThreads}, outside any transaction. Factory and destination are looked up for every send, so
 * a destination removed from the server dead-letters its rows instead of feeding a stale reference.
 */
@ApplicationScoped
public class JmsTarget implements DeliveryTarget {

    /** A reason a destination cannot be a trigger's target: a problem type and its detail. */
    public record Refusal(String type, String detail) {
    }

    @Inject
    @ConfigProperty(name = "outbox.jms.connection-factory", defaultValue = "java:/JmsXA")
    String factoryName;

    @Inject
    DeliveryThreads threads;

    @Override
    public String type() {
        return "jms";
    }

    /** Checked when a trigger is registered: the server has a connection factory, and the destination exists. */
    public Optional<Refusal> refusal(String destination) {
        if (!ServerObjects.isLocalName(destination)) {
            return Optional.of(new Refusal("jms-destination-unknown",
                    "destination must be the JNDI name of a queue or topic of this server, e.g. java:/jms/queue/orders"));
        }
        try {
            ServerObjects.lookup(factoryName, ConnectionFactory.class);
        } catch (NamingException e) {
            return Optional.of(new Refusal("jms-unavailable", "no JMS connection factory on this server ("
                    + factoryName + ", outbox.jms.connection-factory): jms targets need a server with messaging,"
                    + " e.g. WildFly's standalone-full.xml"));
        }
        try {
            ServerObjects.lookup(destination, Destination.class);
        } catch (NamingException e) {
            return Optional
                    .of(new Refusal("jms-destination-unknown", "no JMS queue or topic is bound at " + destination));
        }
        return Optional.empty();
    }

    @Override
    public CompletableFuture<DeliveryResult> deliver(ClaimedRow row, int maxAttempts, Duration timeout) {
        return threads.start(row, timeout, () -> send(row));
    }

    private DeliveryResult send(ClaimedRow row) {
        String name = row.trigger().target();
        ConnectionFactory factory;
        Destination destination;
        try {
            factory = ServerObjects.lookup(factoryName, ConnectionFactory.class);
        } catch (NamingException e) {
            return DeliveryResult
                    .failed("no JMS connection factory at " + factoryName + " (outbox.jms.connection-factory)");
        }
        try {
            destination = ServerObjects.lookup(name, Destination.class);
        } catch (NameNotFoundException e) {
            return DeliveryResult.rejected("no JMS queue or topic is bound at " + name);
        } catch (NamingException e) {
            return DeliveryResult.failed("JMS destination " + name + " could not be looked up");
        }
        try (JMSContext context = factory.createContext()) {
            TextMessage message = message(context, row);
            context.createProducer().send(destination, message);
            // the reply (for invoke): which message the broker took
            return new DeliveryResult.Delivered(
                    Jsons.object().add("jmsMessageId", String.valueOf(message.getJMSMessageID()))
                            .add("destination", name).build().toString());
        } catch (RuntimeException | JMSException e) {
            return JmsFailures.result(e, name);
        }
    }

    /** The payload as text, and where it came from as properties (names without dashes: JMS selectors can use them). */
    static TextMessage message(JMSContext context, ClaimedRow row) throws JMSException {
        TextMessage m = context.createTextMessage(row.payload());
        m.setStringProperty("outboxId", row.id().toString());
        m.setStringProperty("outboxAppId", row.appId().toString());
        m.setStringProperty("outboxSourceKind", row.sourceKind());
        if (row.triggerId() != null) {
            m.setStringProperty("outboxTriggerId", row.triggerId().toString());
        }
        m.setIntProperty("outboxAttempt", row.attemptCount());
        if (row.rootExecutionId() != null) {
            m.setStringProperty("outboxRootExecutionId", row.rootExecutionId().toString());
        }
        m.setIntProperty("outboxTriggerDepth", row.triggerDepth());
        if (row.trace() != null) {
            // the producer's W3C trace context, under the names OpenTelemetry's JMS instrumentation reads
            m.setStringProperty("traceparent", row.trace().traceparent());
            if (row.trace().tracestate() != null) {
                m.setStringProperty("tracestate", row.trace().tracestate());
            }
        }
        return m;
    }

    /** Which JMS failures may pass (the broker is busy, down, failing over) and which will not. */
    static final class JmsFailures {

        private JmsFailures() {
        }

        static DeliveryResult result(Exception e, String destination) {
            if (e instanceof InvalidDestinationRuntimeException
                    || e instanceof jakarta.jms.InvalidDestinationException) {
                return DeliveryResult.rejected("JMS destination " + destination + " does not exist on the broker");
            }
            if (e instanceof JMSSecurityRuntimeException || e instanceof jakarta.jms.JMSSecurityException) {
                return DeliveryResult.rejected("not allowed to send to JMS destination " + destination);
            }
            if (e instanceof JMSRuntimeException || e instanceof JMSException) {
                return DeliveryResult.failed("JMS send to " + destination + " failed: " + HandlerTarget.describe(e));
            }
            return DeliveryResult.failed("JMS send to " + destination + " failed: " + e.getClass().getSimpleName());
        }
    }
}
