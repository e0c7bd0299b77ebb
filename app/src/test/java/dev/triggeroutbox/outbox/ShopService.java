package dev.triggeroutbox.outbox;

import dev.triggeroutbox.api.OutboxMessage;
import dev.triggeroutbox.api.OutboxProducer;
import dev.triggeroutbox.testkit.Sql;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;
import java.time.OffsetDateTime;
import java.util.UUID;

/** The business side of {@link CrossDeploymentIT}: an order and its outbox row in one transaction. */
@Stateless
@PermitAll
@RunAs("outbox-admin")
public class ShopService {

    @EJB(lookup = "java:global/trigger-outbox/OutboxProducerBean!dev.triggeroutbox.api.OutboxProducer")
    OutboxProducer outbox;

    public UUID placeOrder(UUID order, UUID app, UUID trigger, boolean fail) {
        Sql.update("INSERT INTO shop_orders (id, app_id) VALUES (?, ?)", order, app);
        UUID row = outbox.enqueue(new OutboxMessage(app, "docs", trigger, "{\"order\":\"" + order + "\"}")
                .deliverAt(OffsetDateTime.now().plusHours(1)));
        if (fail) {
            throw new IllegalStateException("payment declined");
        }
        return row;
    }

    public UUID placeOrderWithKind(UUID order, UUID app, UUID trigger, String kind) {
        Sql.update("INSERT INTO shop_orders (id, app_id) VALUES (?, ?)", order, app);
        return outbox.enqueue(new OutboxMessage(app, kind, trigger, "{}"));
    }

    /** Only an enqueue, with every value the caller chooses. */
    public UUID enqueue(UUID app, UUID trigger, String payload, int depth, OffsetDateTime deliverAt) {
        return outbox
                .enqueue(new OutboxMessage(app, "docs", trigger, payload).lineage(null, depth).deliverAt(deliverAt));
    }

    public java.util.List<UUID> publish(UUID app, String payload) {
        return outbox.publish(app, "docs", payload);
    }

    /** An enqueue and a publish in the lane of {@code key}, in one transaction. */
    public java.util.List<UUID> keyed(UUID app, UUID trigger, String key) {
        java.util.List<UUID> rows = new java.util.ArrayList<>();
        rows.add(outbox.enqueue(new OutboxMessage(app, "docs", trigger, "{}").orderingKey(key)
                .deliverAt(OffsetDateTime.now().plusHours(1))));
        rows.addAll(outbox.publish(app, "docs", "{}", key));
        return rows;
    }

    /** An enqueue that fails in the database: the transaction's connection (shared with the outbox) finds no tables. */
    public UUID enqueueWithTheTablesHidden(UUID app, UUID trigger) {
        Sql.update("SET LOCAL search_path TO no_such_schema");
        return outbox.enqueue(new OutboxMessage(app, "docs", trigger, "{}"));
    }
}
