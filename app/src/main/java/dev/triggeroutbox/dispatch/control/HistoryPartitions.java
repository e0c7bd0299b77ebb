package dev.triggeroutbox.dispatch.control;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What the partitions of {@code delivery_history} should be, decided from what they are: the next step
 * (drop one partition past retention, or add the next one ahead) for {@link DeliveryHistory} to take. No
 * database here; times are the database clock's, bounds in UTC.
 *
 * <p>A partition spans a day, or an hour when the retention is under {@link #DAYS_FROM} (a partition goes
 * only once all of it is past retention, so an outcome stays up to one span longer than the retention: a
 * day is at most a seventh more at the default week, an hour keeps a short retention short). New
 * partitions always continue from the highest bound there is (or from now, after a long stop), so a changed span
 * never overlaps an old one.
 */
final class HistoryPartitions {

    /** Retentions from two days up get daily partitions: at most half again, and 2 to 9 partitions at the default. */
    static final Duration DAYS_FROM = Duration.ofHours(48);
    /** How far ahead partitions exist: housekeeping can stop this long before rows land in the default partition. */
    static final Duration AHEAD_OF_DAYS = Duration.ofDays(3);
    static final Duration AHEAD_OF_HOURS = Duration.ofDays(1);

    private static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("'delivery_history_p'yyyyMMdd'_'HHmm")
            .withZone(ZoneOffset.UTC);

    /** One range partition; {@code from} null is MINVALUE (the table from before V11). */
    record Range(String name, Instant from, Instant to) {
    }

    /**
     * @param newestInDefault the latest finished_at in the default partition, null when it is empty: a new
     *                        partition must start above it (attaching one whose range has rows there fails)
     */
    record Layout(Instant now, List<Range> ranges, Instant newestInDefault) {
    }

    sealed interface Step {
    }

    record Drop(String name) implements Step {
    }

    record Create(String name, Instant from, Instant to) implements Step {
    }

    private HistoryPartitions() {
    }

    static ChronoUnit span(Duration retention) {
        return retention.compareTo(DAYS_FROM) >= 0 ? ChronoUnit.DAYS : ChronoUnit.HOURS;
    }

    /** The first thing to change, if any: drops before creates (the oldest first), then the next partition up. */
    static Optional<Step> next(Layout layout, Duration retention) {
        Instant cutoff = layout.now().minus(retention);
        Optional<Step> drop = layout.ranges().stream()
                .filter(r -> !r.to().isAfter(cutoff))
                .min(Comparator.comparing(Range::to))
                .map(r -> new Drop(r.name()));
        if (drop.isPresent()) {
            return drop;
        }
        ChronoUnit span = span(retention);
        Duration ahead = span == ChronoUnit.DAYS ? AHEAD_OF_DAYS : AHEAD_OF_HOURS;
        // nothing is made for times gone by: rows are finished at now(), and what a clock set back sends
        // below the partitions lands in the default one
        Instant nowSpan = layout.now().truncatedTo(span);
        Instant start = layout.ranges().stream().map(Range::to).filter(nowSpan::isBefore)
                .max(Comparator.naturalOrder()).orElse(nowSpan);
        if (layout.newestInDefault() != null && !layout.newestInDefault().isBefore(start)) {
            start = layout.newestInDefault().truncatedTo(span).plus(1, span);
        }
        if (!start.isBefore(layout.now().plus(ahead))) {
            return Optional.empty();
        }
        Instant end = start.truncatedTo(span).plus(1, span);
        return Optional.of(new Create(NAME.format(start), start, end));
    }
}
