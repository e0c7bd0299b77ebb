package dev.triggeroutbox.dispatch.control;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.LongAdder;

/** What this node's dispatcher did since it started; read by the admin side and by tests. */
@ApplicationScoped
public class DispatchCounters {

    private final LongAdder delivered = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();
    private final LongAdder fenced = new LongAdder();
    private final LongAdder leasesRecovered = new LongAdder();
    private volatile long lastTickMillis;

    void record(Claims.Finished finished) {
        delivered.add(finished.delivered());
        retried.add(finished.retried());
        deadLettered.add(finished.dead());
        fenced.add(finished.fenced());
    }

    public void leasesRecovered(int count) {
        leasesRecovered.add(count);
    }

    /** The poll timer fired (liveness). */
    public void ticked() {
        lastTickMillis = System.currentTimeMillis();
    }

    /** When the poll timer last fired on this node; 0 before the first tick. */
    public long lastTickMillis() {
        return lastTickMillis;
    }

    public long delivered() {
        return delivered.sum();
    }

    public long retried() {
        return retried.sum();
    }

    public long deadLettered() {
        return deadLettered.sum();
    }

    /** Late results discarded because their claim was no longer held (zombie completions). */
    public long fenced() {
        return fenced.sum();
    }

    public long leasesRecovered() {
        return leasesRecovered.sum();
    }
}
