package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.sql.SQLException;

/** What every part of the run works with: the settings, the database, the server and its API. */
record Bench(Settings settings, Database db, Server server, Api api, OutboxTables tables) {

    /** A source of a count that may fail (a query, an HTTP call). */
    @FunctionalInterface
    interface Counter {
        long get() throws Exception;
    }

    /**
     * Waits until {@code done} reaches {@code target}, printing progress every few seconds. Fails when
     * the count stops moving for {@code stallSeconds} (the harness or the product is broken), so a
     * broken run ends instead of hanging.
     */
    static void await(String what, long target, Counter done, int stallSeconds) throws Exception {
        long lastValue = -1;
        long lastMove = System.nanoTime();
        long lastPrint = System.nanoTime();
        long start = System.nanoTime();
        long first = -1;
        while (true) {
            long v = done.get();
            long now = System.nanoTime();
            if (first < 0) {
                first = v;
            }
            if (v >= target) {
                return;
            }
            if (v != lastValue) {
                lastValue = v;
                lastMove = now;
            } else if (now - lastMove > stallSeconds * 1_000_000_000L) {
                throw new IllegalStateException(
                        what + ": stuck at " + v + " of " + target + " for " + stallSeconds + " s");
            }
            if (now - lastPrint > 3_000_000_000L) {
                lastPrint = now;
                double s = (now - start) / 1e9;
                Progress.say("    %s: %,d of %,d (%,.0f/s)", what, v, target, (v - first) / s);
            }
            Thread.sleep(100);
        }
    }

    /** Lets the server's next ticks see a change of the pause switch. */
    void settle() throws InterruptedException {
        Thread.sleep(4L * settings.pollMillis() + 100);
    }

    void pause() throws SQLException, InterruptedException {
        tables.paused(true);
        settle();
    }
}
