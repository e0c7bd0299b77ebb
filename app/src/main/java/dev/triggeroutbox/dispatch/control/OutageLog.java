package dev.triggeroutbox.dispatch.control;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs a failure that repeats every tick (the database is down) once with its cause, then once a
 * minute with a count, and once more when it is over, instead of a stack trace per poll.
 */
public final class OutageLog {

    private static final long REPEAT_MILLIS = 60_000;

    private final Logger log;
    private final String what;
    private long firstAt;
    private long lastLoggedAt;
    private long failures;

    public OutageLog(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    public synchronized void failed(Exception e) {
        long now = System.nanoTime() / 1_000_000; // monotonic: a clock set back must not silence the log
        failures++;
        if (failures == 1) {
            firstAt = now;
            lastLoggedAt = now;
            log.log(Level.WARNING, what + " failed: " + e.getMessage(), e);
        } else if (now - lastLoggedAt >= REPEAT_MILLIS) {
            lastLoggedAt = now;
            log.warning(what + " still failing (" + failures + " times in " + (now - firstAt) / 1000 + " s): "
                    + e.getMessage());
        }
    }

    public synchronized void succeeded() {
        if (failures > 0) {
            log.info(what + " works again after " + failures + " failure(s) in "
                    + (System.nanoTime() / 1_000_000 - firstAt) / 1000 + " s");
            failures = 0;
        }
    }
}
