package dev.triggeroutbox.console.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
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

    /** What the history shows finished in one minute (starting at {@code minute}, UTC). */
    public record Minute(OffsetDateTime minute, Counts.Finished finished) {
    }

    /** The last {@code minutes} whole minutes plus the current one, oldest first, empty minutes included. */
    public List<Minute> perMinute(int minutes) {
        Counts.Snapshot snapshot = counts.snapshot();
        List<Minute> items = new ArrayList<>();
        Counts.Finished[] all = snapshot.minutes();
        for (int i = all.length - 1 - minutes; i < all.length; i++) {
            long minute = snapshot.currentMinute() - (all.length - 1 - i);
            items.add(new Minute(Instant.ofEpochSecond(minute * 60).atOffset(ZoneOffset.UTC), all[i]));
        }
        return items;
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

        private final String field;

        By(String field) {
            this.field = field;
        }

        /** The name of the dimension, as {@code ?by=} takes it and each line of a breakdown is keyed. */
        public String field() {
            return field;
        }

        abstract String of(Counts.Group g);
    }

    /**
     * One line of a breakdown: {@code key} is the app or source kind; {@code waiting} is pending, scheduled and held,
     * {@code inFlight} under a lease, {@code dead} dead letters; the rest finished in the last hour.
     */
    public record Line(String key, long waiting, long inFlight, long dead, long delivered, long deadLettered,
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
    public List<Line> breakdown(By by, int limit) {
        Counts.Snapshot snapshot = counts.snapshot();
        Map<String, Line> lines = new HashMap<>();
        for (Counts.Live l : snapshot.live()) {
            String key = by.of(l.group());
            lines.merge(key, new Line(key, l.pending() + l.scheduled() + l.held(), l.inFlight(), l.dead(), 0, 0, 0),
                    Line::plus);
        }
        snapshot.lastHour().forEach((group, f) -> {
            String key = by.of(group);
            lines.merge(key, new Line(key, 0, 0, 0, f.delivered(), f.dead(), f.cancelled()), Line::plus);
        });
        return lines.values().stream()
                .sorted(Comparator.comparingLong(Line::weight).reversed().thenComparing(Line::key))
                .limit(limit)
                .toList();
    }
}
