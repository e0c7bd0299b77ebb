package dev.triggeroutbox.targets.entity;

/**
 * What the targets need to know of the dispatcher that calls them, handed down by it (a CDI producer of the
 * dispatcher's settings) so that the targets never read the dispatcher's configuration themselves.
 *
 * @param concurrency      most deliveries in flight on this node ({@code outbox.dispatch.concurrency})
 * @param backoffCapMillis the longest delay the backoff gives between two attempts
 */
public record DispatchLimits(int concurrency, long backoffCapMillis) {
}
