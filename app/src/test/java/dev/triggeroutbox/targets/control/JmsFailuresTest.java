package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.platform.ServerObjects;
import dev.triggeroutbox.targets.entity.DeliveryResult;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.JMSSecurityRuntimeException;
import org.junit.jupiter.api.Test;

class JmsFailuresTest {

    private static final String Q = "java:/jms/queue/orders";

    @Test
    void aDestinationTheBrokerDoesNotKnowOrRefusesDeadLetters() {
        for (Exception e : new Exception[] {new InvalidDestinationRuntimeException("AMQ gone"),
                new InvalidDestinationException("gone"), new JMSSecurityRuntimeException("AMQ not allowed")}) {
            DeliveryResult r = JmsTarget.JmsFailures.result(e, Q);
            assertInstanceOf(DeliveryResult.Rejected.class, r, e.toString());
            assertTrue(((DeliveryResult.Rejected) r).error().contains(Q), r.toString());
        }
    }

    @Test
    void brokerTroubleIsRetried() {
        for (Exception e : new Exception[] {new JMSRuntimeException("AMQ219010: Connection is destroyed"),
                new IllegalStateRuntimeException("session closed"), new JMSException("timed out"),
                new IllegalStateException("x")}) {
            DeliveryResult r = JmsTarget.JmsFailures.result(e, Q);
            assertInstanceOf(DeliveryResult.Failed.class, r, e.toString());
        }
        assertEquals("JMS send to " + Q + " failed: JMSRuntimeException: AMQ219010: Connection is destroyed",
                ((DeliveryResult.Failed) JmsTarget.JmsFailures
                        .result(new JMSRuntimeException("AMQ219010: Connection is destroyed"), Q)).error());
    }

    @Test
    void onlyNamesOfTheServersOwnNamespaceAreLookedUp() {
        assertTrue(ServerObjects.isLocalName("java:/jms/queue/orders"));
        assertTrue(ServerObjects.isLocalName("java:global/jms/q"));
        for (String name : new String[] {"ldap://evil/x", "java:ldap://evil/x", "rmi://h/x", "jms/queue/orders",
                "java:", "java:/a b", "", null}) {
            assertTrue(!ServerObjects.isLocalName(name), String.valueOf(name));
        }
    }
}
