package dev.triggeroutbox.pubsub.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.entity.AppId;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopicMappingsTest {

    private static final String A = "0a0a0a0a-0000-4000-8000-00000000000a";
    private static final String B = "0b0b0b0b-0000-4000-8000-00000000000b";

    @Test
    void readsPairsIgnoringBlanksAndRepeats() {
        List<TopicMappings.Subscription> s = TopicMappings.parse(
                " " + A + " = java:/jms/topic/orders , ," + B + "=java:/jms/topic/orders," + A
                        + "=java:/jms/topic/orders");
        assertEquals(List.of(new TopicMappings.Subscription(AppId.parse(A), "java:/jms/topic/orders"),
                new TopicMappings.Subscription(AppId.parse(B), "java:/jms/topic/orders")), s);
        assertTrue(TopicMappings.parse("").isEmpty());
        assertTrue(TopicMappings.parse(null).isEmpty());
    }

    @Test
    void subscriptionNamesAreStableAndDistinctPerAppAndTopic() {
        TopicMappings.Subscription a = new TopicMappings.Subscription(AppId.parse(A), "java:/jms/topic/orders");
        assertEquals("trigger-outbox_" + A + "_java__jms_topic_orders", a.name());
        assertNotEquals(a.name(), new TopicMappings.Subscription(AppId.parse(B), "java:/jms/topic/orders").name());
        assertNotEquals(a.name(), new TopicMappings.Subscription(AppId.parse(A), "java:/jms/topic/other").name());
    }

    @Test
    void refusesWhatIsNotAnAppAndALocalTopicName() {
        for (String bad : List.of("java:/jms/topic/orders", "not-a-uuid=java:/jms/topic/x", A + "=ldap://evil/x",
                A + "=jms/topic/relative", A + "=")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TopicMappings.parse(bad),
                    bad);
            assertTrue(e.getMessage().contains(bad.strip()), e.getMessage());
        }
    }
}
