package dev.triggeroutbox.faults.server;

import dev.triggeroutbox.api.OutboxDelivery;
import dev.triggeroutbox.api.OutboxHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

/**
 * Scenario 5's handler, added by the harness to its copy of the WAR (never to the product's): a row whose
 * payload says {@code "poison":true} halts the JVM of the node delivering it, as a native crash or an
 * out-of-memory kill would; any other row is delivered.
 */
@ApplicationScoped
@Named("faults-poison")
public class PoisonHandler implements OutboxHandler {

    @Override
    public Object handle(OutboxDelivery delivery) {
        if (delivery.payload().replace(" ", "").contains("\"poison\":true")) {
            System.err.println(
                    "faults-poison: halting this JVM on row " + delivery.id() + ", attempt " + delivery.attempt());
            Runtime.getRuntime().halt(137);
        }
        return null;
    }
}
