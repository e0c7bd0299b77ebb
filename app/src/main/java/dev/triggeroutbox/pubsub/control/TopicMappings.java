package dev.triggeroutbox.pubsub.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.platform.ServerObjects;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which broker topics feed which apps, from {@code outbox.pubsub.topics}:
 * {@code <appUuid>=<topic JNDI name>,…}. Each pair is one shared durable subscription, named after
 * both, so every node subscribes under the same name and each message reaches one node only.
 */
public final class TopicMappings {

    /** One app fed by one topic. */
    public record Subscription(AppId app, String topic) {

        /** The shared durable subscription's name: the same on every node, distinct per app and topic. */
        public String name() {
            return "trigger-outbox_" + app + "_" + topic.replaceAll("[^A-Za-z0-9]", "_");
        }

        @Override
        public String toString() {
            return topic + " -> app " + app;
        }
    }

    private TopicMappings() {
    }

    /** Parses the configuration; a malformed entry throws {@link IllegalArgumentException} saying which. */
    public static List<Subscription> parse(String config) {
        Set<Subscription> out = new LinkedHashSet<>();
        if (config == null) {
            return List.of();
        }
        for (String entry : config.split(",")) {
            String e = entry.strip();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + e + "' is not <appUuid>=<topic JNDI name>");
            }
            AppId app;
            try {
                app = AppId.parse(e.substring(0, eq).strip());
            } catch (IllegalArgumentException notUuid) {
                throw new IllegalArgumentException(
                        "'" + e + "': '" + e.substring(0, eq).strip() + "' is not an app id (a UUID)");
            }
            String topic = e.substring(eq + 1).strip();
            if (!ServerObjects.isLocalName(topic)) {
                throw new IllegalArgumentException(
                        "'" + e + "': the topic must be a java: JNDI name, e.g. java:/jms/topic/orders");
            }
            out.add(new Subscription(app, topic));
        }
        return new ArrayList<>(out);
    }
}
