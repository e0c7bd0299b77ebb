package dev.triggeroutbox.bench.server;

import dev.triggeroutbox.api.OutboxDelivery;
import dev.triggeroutbox.api.OutboxHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * The benchmark's delivery target: does nothing but tell the probe it ran (a counter, and the start
 * time of latency-probe rows), so the dispatcher's own cost is what the drain measures.
 */
@ApplicationScoped
@Named("bench-noop")
public class NoopHandler implements OutboxHandler {

    @Inject
    Probe probe;

    @Override
    public Object handle(OutboxDelivery delivery) {
        probe.delivered(delivery.payload());
        return null;
    }
}
