package dev.triggeroutbox.console.control;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;

/** Totals for {@code GET /admin/stats}, from the console's shared counts (as of {@code asOf}, on the database clock). */
@ApplicationScoped
public class Stats {

    @Inject
    Counts counts;

    public JsonObject totals() throws SQLException {
        Counts.Snapshot snapshot = counts.snapshot();
        long[] sum = new long[5];
        double oldest = 0;
        Map<String, long[]> byKind = new TreeMap<>();
        for (Counts.Live l : snapshot.live()) {
            long[] kind = byKind.computeIfAbsent(l.group().sourceKind(), k -> new long[5]);
            long[] add = {l.pending(), l.scheduled(), l.inFlight(), l.dead(), l.held()};
            for (int i = 0; i < 5; i++) {
                kind[i] += add[i];
                sum[i] += add[i];
            }
            oldest = Math.max(oldest, l.oldestDueSeconds());
        }
        JsonObjectBuilder kinds = Jsons.object();
        byKind.forEach((kind, c) -> kinds.add(kind, Jsons.object().add("pending", c[0]).add("scheduled", c[1])
                .add("inFlight", c[2]).add("dead", c[3]).add("held", c[4])));
        return Jsons.object()
                .add("pending", sum[0])
                .add("scheduled", sum[1])
                .add("inFlight", sum[2])
                .add("dead", sum[3])
                .add("held", sum[4])
                .add("deliveredLastMinute", snapshot.deliveredLastMinute())
                .add("oldestDueAgeSeconds", Math.round(oldest * 1000) / 1000.0)
                .add("byKind", kinds)
                .add("asOf", ConsoleJson.utc(snapshot.asOf().atOffset(java.time.ZoneOffset.UTC)))
                .build();
    }
}
