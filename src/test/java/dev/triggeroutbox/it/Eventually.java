package dev.triggeroutbox.it;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline; fails with a message saying what was last seen. */
public final class Eventually {

    private Eventually() {
    }

    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> whatWasSeen) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout + ": " + whatWasSeen.get());
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting", e);
            }
        }
    }
}
