package dev.triggeroutbox.api;

import java.util.List;
import java.util.UUID;

/**
 * Enqueue from another deployment on the same server, inside that deployment's own JTA
 * transaction (the call joins it: rows exist if and only if it commits). Look it up as
 * {@code java:global/trigger-outbox/OutboxProducerBean!dev.triggeroutbox.api.OutboxProducer}.
 *
 * <p>The caller needs the role {@code outbox-producer} and the group {@code app:<uuid>} of the
 * app it writes to, or the role {@code outbox-admin} (for server-side code: {@code @RunAs}).
 *
 * <p>The remote view is declared in WEB-INF/jboss-ejb3.xml (WildFly), not with {@code @Remote}:
 * Payara Micro has no remote EJB and would refuse the WAR (docs/GOTCHAS.md).
 */
public interface OutboxProducer {

    /** Enqueues one row for one trigger; returns its id. */
    UUID enqueue(OutboxMessage message);

    /**
     * Publishes an event to every enabled trigger of {@code (appId, sourceKind)}; returns the ids of
     * the rows written (none when no trigger matches).
     */
    List<UUID> publish(UUID appId, String sourceKind, String payload);

    /**
     * Publishes like {@link #publish(UUID, String, String)}, each row in its trigger's lane of {@code orderingKey}
     * (1 to 200 characters; null: none).
     */
    List<UUID> publish(UUID appId, String sourceKind, String payload, String orderingKey);
}
