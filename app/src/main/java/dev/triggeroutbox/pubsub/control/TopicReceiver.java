package dev.triggeroutbox.pubsub.control;

import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TraceContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.BytesMessage;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.transaction.Transactional;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * One step of a subscription: receives up to a batch of messages and publishes each as a
 * {@code pubsub} event of the subscription's app, all in one JTA transaction. The factory must be
 * XA-capable (WildFly: {@code java:/JmsXA}) so the session joins the transaction: the messages are
 * consumed if and only if their event rows commit; a failure rolls both back and the broker
 * redelivers.
 */
@ApplicationScoped
public class TopicReceiver {

    /** The principal recorded on rows that came from the broker. */
    static final String ORIGIN = "pubsub";

    @Inject
    Outbox outbox;

    @Inject
    OutboxLimits limits;

    /** Waits up to {@code waitMillis} for a first message, then takes what is there, up to {@code batch}. */
    @Transactional(value = Transactional.TxType.REQUIRES_NEW, rollbackOn = Exception.class)
    public int receive(TopicMappings.Subscription subscription, ConnectionFactory factory, Topic topic, int batch,
            long waitMillis) throws JMSException {
        try (JMSContext context = factory.createContext();
                JMSConsumer consumer = context.createSharedDurableConsumer(topic, subscription.name())) {
            int n = 0;
            Message m = consumer.receive(waitMillis);
            while (m != null) {
                // a message that carries a W3C trace context (OpenTelemetry's JMS property names) passes it on
                try (CurrentTrace.Scope trace = CurrentTrace.open(TraceContext.parse(
                        m.getStringProperty("traceparent"), m.getStringProperty("tracestate")))) {
                    outbox.publish(subscription.app(), SourceKind.PUBSUB,
                            PubSubPayloads.payload(received(subscription.topic(), m), limits.maxPayloadBytes()),
                            ORIGIN, null, 0, null);
                }
                if (++n >= batch) {
                    break;
                }
                m = consumer.receiveNoWait();
            }
            return n;
        }
    }

    private static PubSubPayloads.Received received(String topic, Message m) throws JMSException {
        Map<String, Object> properties = new HashMap<>();
        for (Object name : Collections.list(m.getPropertyNames())) {
            properties.put((String) name, m.getObjectProperty((String) name));
        }
        String bodyType;
        Object body;
        if (m instanceof TextMessage text) {
            bodyType = "text";
            body = text.getText();
        } else if (m instanceof BytesMessage bytes) {
            bodyType = "bytes";
            body = bytes.getBody(byte[].class);
        } else if (m instanceof MapMessage map) {
            bodyType = "map";
            Map<String, Object> entries = new HashMap<>();
            for (Object name : Collections.list(map.getMapNames())) {
                entries.put((String) name, map.getObject((String) name));
            }
            body = entries;
        } else if (m instanceof ObjectMessage) {
            bodyType = "object"; // never deserialized
            body = null;
        } else if (m instanceof StreamMessage) {
            bodyType = "stream";
            body = null;
        } else {
            bodyType = "none";
            body = null;
        }
        return new PubSubPayloads.Received(topic, m.getJMSMessageID(), m.getJMSCorrelationID(), m.getJMSTimestamp(),
                m.getJMSType(), properties, bodyType, body);
    }
}
