package dev.triggeroutbox.testkit;

import dev.triggeroutbox.api.OutboxDelivery;
import dev.triggeroutbox.api.OutboxHandler;
import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/** Handlers the integration tests deliver to; each records every attempt it sees. */
public final class TestHandlers {

    private TestHandlers() {
    }

    /** Takes every row. */
    @ApplicationScoped
    @Named("recorder")
    public static class Accepting implements OutboxHandler {
        @Inject
        Recorder recorder;

        @Override
        public Object handle(OutboxDelivery delivery) {
            recorder.record("recorder", delivery);
            return "ok";
        }
    }

    /** Fails the first attempts of a row: as many as its payload's {"failures": n}. */
    @ApplicationScoped
    @Named("flaky")
    public static class Flaky implements OutboxHandler {
        @Inject
        Recorder recorder;

        @Override
        public Object handle(OutboxDelivery delivery) {
            recorder.record("flaky", delivery);
            int failures = Integer.parseInt(delivery.payload().replaceAll("\\D+", ""));
            if (delivery.attempt() <= failures) {
                throw new IllegalStateException("flaky failure on attempt " + delivery.attempt());
            }
            return "ok after " + failures;
        }
    }

    /** Throws on every attempt. */
    @ApplicationScoped
    @Named("failing")
    public static class Failing implements OutboxHandler {
        @Inject
        Recorder recorder;

        @Override
        public Object handle(OutboxDelivery delivery) {
            recorder.record("failing", delivery);
            throw new IllegalStateException("boom on attempt " + delivery.attempt());
        }
    }

    /** Invokes the trigger named in its payload {"target": "<trigger id>"} asynchronously, then returns. */
    @ApplicationScoped
    @Named("invoker")
    public static class Invoker implements OutboxHandler {
        @Inject
        Recorder recorder;

        @Inject
        Outbox outbox;

        @Override
        public Object handle(OutboxDelivery delivery) throws Exception {
            recorder.record("invoker", delivery);
            String target = delivery.payload().replaceAll(".*\"target\": ?\"([0-9a-f-]+)\".*", "$1");
            return outbox.invokeAsync(delivery, TriggerId.parse(target), "{\"from\": \"invoker\"}", null).toString();
        }
    }

    /** Invokes its own trigger again on every delivery: a cycle only the loop guard ends. */
    @ApplicationScoped
    @Named("cascader")
    public static class Cascader implements OutboxHandler {
        @Inject
        Recorder recorder;

        @Inject
        Outbox outbox;

        @Override
        public Object handle(OutboxDelivery delivery) throws Exception {
            recorder.record("cascader", delivery);
            return outbox.invokeAsync(delivery, new TriggerId(delivery.triggerId()), delivery.payload(), null)
                    .toString();
        }
    }

    /** Publishes a docs event of its app from inside the delivery: a cascade by fan-out. */
    @ApplicationScoped
    @Named("publisher")
    public static class Publisher implements OutboxHandler {
        @Inject
        Recorder recorder;

        @Inject
        Outbox outbox;

        @Override
        public Object handle(OutboxDelivery delivery) throws Exception {
            recorder.record("publisher", delivery);
            return outbox.publish(delivery, SourceKind.DOCS, "{\"from\": \"publisher\"}").size();
        }
    }

    /** Never returns (until interrupted). */
    @ApplicationScoped
    @Named("hanging")
    public static class Hanging implements OutboxHandler {
        @Inject
        Recorder recorder;

        @Override
        public Object handle(OutboxDelivery delivery) throws InterruptedException {
            recorder.record("hanging", delivery);
            Thread.sleep(Long.MAX_VALUE);
            return null;
        }
    }

    /**
     * Waits (at most 900 ms) until {@link #PARTIES} deliveries are inside it at once, then takes the row;
     * fails when they never meet, as when deliveries run a few at a time.
     */
    @ApplicationScoped
    @Named("rendezvous")
    public static class Rendezvous implements OutboxHandler {
        public static final int PARTIES = 12;
        public static volatile java.util.concurrent.CyclicBarrier barrier = new java.util.concurrent.CyclicBarrier(
                PARTIES);

        @Inject
        Recorder recorder;

        @Override
        public Object handle(OutboxDelivery delivery) throws Exception {
            recorder.record("rendezvous", delivery);
            barrier.await(900, java.util.concurrent.TimeUnit.MILLISECONDS);
            return "met";
        }
    }

    /**
     * Holds every delivery until the test opens the gate (at most 900 ms, below the tests' delivery
     * timeout), counting those inside: a stand-in for a slow target that is up.
     */
    @ApplicationScoped
    @Named("gate")
    public static class Gate implements OutboxHandler {
        public static volatile java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
        public static final java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();

        @Inject
        Recorder recorder;

        @Override
        public Object handle(OutboxDelivery delivery) throws Exception {
            recorder.record("gate", delivery);
            inside.incrementAndGet();
            try {
                open.await(900, java.util.concurrent.TimeUnit.MILLISECONDS);
                return "through";
            } finally {
                inside.decrementAndGet();
            }
        }
    }
}
