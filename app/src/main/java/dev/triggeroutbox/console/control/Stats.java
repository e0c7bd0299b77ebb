package dev.triggeroutbox.console.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/** Totals for {@code GET /admin/stats}, from the console's shared counts (as of {@code asOf}, on the database clock). */
@ApplicationScoped
public class Stats {

    @Inject
    Counts counts;

    /** Rows in the outbox by state, and dead letters. */
    public record Waiting(long pending, long scheduled, long inFlight, long dead, long held) {
        Waiting plus(Counts.Live l) {
            return new Waiting(pending + l.pending(), scheduled + l.scheduled(), inFlight + l.inFlight(),
                    dead + l.dead(),
                    held + l.held());
        }
    }

    /**
     * Every app's rows together and by source kind (sorted by kind), what was delivered in the last minute, and how
     * long the oldest due row has waited (0: none due).
     */
    public record Totals(Waiting all, Map<String, Waiting> byKind, long deliveredLastMinute, double oldestDueAgeSeconds,
            Instant asOf) {
    }

    public Totals totals() {
        Counts.Snapshot snapshot = counts.snapshot();
        Waiting none = new Waiting(0, 0, 0, 0, 0);
        Waiting all = none;
        double oldest = 0;
        Map<String, Waiting> byKind = new TreeMap<>();
        for (Counts.Live l : snapshot.live()) {
            byKind.put(l.group().sourceKind(), byKind.getOrDefault(l.group().sourceKind(), none).plus(l));
            all = all.plus(l);
            oldest = Math.max(oldest, l.oldestDueSeconds());
        }
        return new Totals(all, byKind, snapshot.deliveredLastMinute(), oldest, snapshot.asOf());
    }
}
