package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.TraceContext;

/**
 * The trace context that rows written on this thread carry, as OpenTelemetry's current context is
 * implicit for the code it wraps: a REST call's {@code traceparent}, a remote producer's message, the
 * delivery a handler is running (so that what a handler publishes joins its row's trace). Outside a
 * scope there is none and rows carry none.
 */
public final class CurrentTrace {

    private static final ThreadLocal<TraceContext> CURRENT = new ThreadLocal<>();

    /** Ends a scope: the context before it is current again. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    private CurrentTrace() {
    }

    /** The context of this thread's scope, or null. */
    public static TraceContext get() {
        return CURRENT.get();
    }

    /** Makes {@code context} (null: none) current until the scope is closed. */
    public static Scope open(TraceContext context) {
        TraceContext before = CURRENT.get();
        set(context);
        return () -> set(before);
    }

    private static void set(TraceContext context) {
        if (context == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(context);
        }
    }
}
