package dev.triggeroutbox.console.control;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * What the dispatchers finished, per minute, from the delivery history: rows delivered, rows
 * dead-lettered, rows cancelled, and failed attempts (every attempt of a dead or cancelled row, every
 * attempt but the last of a delivered one); and how the work splits up by app or source kind. Retries of rows still in the
 * outbox show once those rows finish. Read from the console's shared counts.
 */
@ApplicationScoped
public class Activity {

    @Inject
    Counts counts;

    /** The last {@code minutes} whole minutes plus the current one, oldest first, empty minutes included. */
    public JsonObject perMinute(int minutes) throws SQLException {
        Counts.Snapshot snapshot = counts.snapshot();
        JsonArrayBuilder items = Jsons.array();
        Counts.Finished[] all = snapshot.minutes();
        for (int i = all.length - 1 - minutes; i < all.length; i++) {
            long minute = snapshot.currentMinute() - (all.length - 1 - i);
            items.add(Jsons.object()
                    .add("minute", ConsoleJson.utc(Instant.ofEpochSecond(minute * 60).atOffset(ZoneOffset.UTC)))
                    .add("delivered", all[i].delivered())
                    .add("dead", all[i].dead())
                    .add("failedAttempts", all[i].failedAttempts())
                    .add("cancelled", all[i].cancelled()));
        }
        return Jsons.object().add("items", items).build();
    }

    /** How the work splits up by one dimension. */
    public enum By {
        SOURCE_KIND("sourceKind") {
            @Override
            String of(Counts.Group g) {
                return g.sourceKind();
            }
        },
        APP("appId") {
            @Override
            String of(Counts.Group g) {
                return g.appId().toString();
            }
        };

        final String field;

        By(String field) {
            this.field = field;
        }

        abstract String of(Counts.Group g);
    }

    /** One line of a breakdown: {@code waiting} is pending and scheduled, {@code inFlight} under a lease. */
    private record Line(String key, long waiting, long inFlight, long dead, long delivered, long deadLettered,
            long cancelled) {
        Line plus(Line o) {
            return new Line(key, waiting + o.waiting, inFlight + o.inFlight, dead + o.dead, delivered + o.delivered,
                    deadLettered + o.deadLettered, cancelled + o.cancelled);
        }

        long weight() {
            return waiting + inFlight + dead + delivered;
        }
    }

    /**
     * Rows waiting and dead, and rows finished in the last hour (this minute and the 59 before it), per
     * source kind or app: the {@code limit} busiest first.
     */
    public JsonObject breakdown(By by, int limit) throws SQLException {
        Counts.Snapshot snapshot = counts.snapshot();
        Map<String, Line> lines = new HashMap<>();
        for (Counts.Live l : snapshot.live()) {
            String key = by.of(l.group());
            lines.merge(key, new Line(key, l.pending() + l.scheduled() + l.held(), l.inFlight(), l.dead(), 0, 0, 0), Line::plus);
        }
        snapshot.lastHour().forEach((group, f) -> {
            String key = by.of(group);
            lines.merge(key, new Line(key, 0, 0, 0, f.delivered(), f.dead(), f.cancelled()), Line::plus);
        });
        JsonArrayBuilder items = Jsons.array();
        lines.values().stream()
                .sorted(Comparator.comparingLong(Line::weight).reversed().thenComparing(Line::key))
                .limit(limit)
                .forEach(l -> items.add(Jsons.object()
                        .add(by.field, l.key())
                        .add("waiting", l.waiting())
                        .add("inFlight", l.inFlight())
                        .add("dead", l.dead())
                        .add("deliveredLastHour", l.delivered())
                        .add("deadLetteredLastHour", l.deadLettered())
                        .add("cancelledLastHour", l.cancelled())));
        return Jsons.object().add("items", items).build();
    }
}
