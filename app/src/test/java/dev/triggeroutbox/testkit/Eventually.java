package dev.triggeroutbox.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline; fails with a message saying what was last seen. */
public final class Eventually {

    private Eventually() {
    }

    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> whatWasSeen) {
        if (!within(timeout, condition)) {
            throw new AssertionError("not within " + timeout + ": " + whatWasSeen.get());
        }
    }

    /** Whether the condition came within the timeout (for a test that reports what it saw before it asserts). */
    public static boolean within(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting", e);
            }
        }
        return true;
    }
}
