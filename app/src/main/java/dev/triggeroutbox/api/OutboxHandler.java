package dev.triggeroutbox.api;

/**
 * A delivery target inside the deployment: a CDI bean implementing this interface and named with
 * {@code @Named("...")} receives the rows of every trigger whose target is {@code {"type":"handler","name":"..."}}.
 *
 * <p>Return normally to mark the row delivered (the return value is the reply of a request/reply
 * call); throw to fail this attempt, which is retried with backoff until the trigger's max attempts;
 * throw {@link PermanentDeliveryException} to dead-letter the row at once. A handler runs on a
 * managed thread, outside any transaction, and is interrupted when it exceeds the delivery timeout.
 */
@FunctionalInterface
public interface OutboxHandler {

    Object handle(OutboxDelivery delivery) throws Exception;
}
