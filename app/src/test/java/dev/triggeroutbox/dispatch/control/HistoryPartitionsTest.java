package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.dispatch.control.HistoryPartitions.Create;
import dev.triggeroutbox.dispatch.control.HistoryPartitions.Drop;
import dev.triggeroutbox.dispatch.control.HistoryPartitions.Layout;
import dev.triggeroutbox.dispatch.control.HistoryPartitions.Range;
import dev.triggeroutbox.dispatch.control.HistoryPartitions.Step;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The partitions of delivery_history a pass of housekeeping arrives at, from the layouts it can find. */
class HistoryPartitionsTest {

    private static final Duration WEEK = Duration.ofHours(168);
    private static final Instant NOW = Instant.parse("2026-12-01T15:40:00Z");
    private static final Instant TODAY = Instant.parse("2026-12-01T00:00:00Z");

    @Test
    void aWeekOfRetentionIsKeptInDaysAndAnHourInHours() {
        assertEquals(ChronoUnit.DAYS, HistoryPartitions.span(WEEK));
        assertEquals(ChronoUnit.DAYS, HistoryPartitions.span(Duration.ofHours(48)));
        assertEquals(ChronoUnit.HOURS, HistoryPartitions.span(Duration.ofHours(47)));
        assertEquals(ChronoUnit.HOURS, HistoryPartitions.span(Duration.ofHours(1)));
    }

    @Test
    void fromTheMigratedTableOnDaysAreAddedUntilThreeDaysAreCovered() {
        Range v7 = new Range("delivery_history_v7", null, TODAY.plus(2, ChronoUnit.DAYS));
        List<Range> made = settle(new ArrayList<>(List.of(v7)), null, WEEK);
        assertEquals(List.of(
                new Range("delivery_history_p20261203_0000", TODAY.plus(2, ChronoUnit.DAYS),
                        TODAY.plus(3, ChronoUnit.DAYS)),
                new Range("delivery_history_p20261204_0000", TODAY.plus(3, ChronoUnit.DAYS),
                        TODAY.plus(4, ChronoUnit.DAYS))),
                made.subList(1, made.size()));
        assertTrue(made.get(made.size() - 1).to().isAfter(NOW.plus(HistoryPartitions.AHEAD_OF_DAYS)));
    }

    @Test
    void aPartitionGoesOnlyOnceAllOfItIsPastRetention() {
        Instant cutoff = NOW.minus(WEEK);
        Range whollyPast = new Range("old", cutoff.minus(1, ChronoUnit.DAYS), cutoff);
        Range straddling = new Range("straddling", cutoff.minus(1, ChronoUnit.HOURS),
                cutoff.plus(23, ChronoUnit.HOURS));
        Range older = new Range("older", cutoff.minus(2, ChronoUnit.DAYS), cutoff.minus(1, ChronoUnit.DAYS));
        Layout layout = new Layout(NOW, List.of(straddling, whollyPast, older), null);
        assertEquals(Optional.of(new Drop("older")), HistoryPartitions.next(layout, WEEK), "the oldest first");
        assertEquals(Optional.of(new Drop("old")),
                HistoryPartitions.next(new Layout(NOW, List.of(straddling, whollyPast), null), WEEK));
    }

    @Test
    void afterAWeekWithoutHousekeepingNothingIsMadeForThePastAndNothingOverTheDefaultPartitionsRows() {
        Range lastMade = new Range("delivery_history_p20261120_0000", Instant.parse("2026-11-20T00:00:00Z"),
                Instant.parse("2026-11-21T00:00:00Z"));
        // rows finished meanwhile are in the default partition, the newest a minute ago
        List<Range> made = settle(new ArrayList<>(List.of(lastMade)), NOW.minus(1, ChronoUnit.MINUTES), WEEK);
        assertEquals(
                new Range("delivery_history_p20261202_0000", TODAY.plus(1, ChronoUnit.DAYS),
                        TODAY.plus(2, ChronoUnit.DAYS)),
                made.get(0),
                "the partition past retention is gone, and the first new one starts above the default partition's rows (today's stay there)");
        assertEquals(3, made.size(), "then days until three ahead are covered");
    }

    @Test
    void shortRetentionsGetHoursADayAhead() {
        Duration sixHours = Duration.ofHours(6);
        List<Range> made = settle(new ArrayList<>(), null, sixHours);
        assertEquals(
                new Range("delivery_history_p20261201_1500", Instant.parse("2026-12-01T15:00:00Z"),
                        Instant.parse("2026-12-01T16:00:00Z")),
                made.get(0));
        assertEquals(25, made.size());
        assertTrue(made.stream().allMatch(r -> Duration.between(r.from(), r.to()).equals(Duration.ofHours(1))));
    }

    @Test
    void aSpanChangedFromHoursToDaysContinuesWhereTheHoursEnd() {
        Range lastHour = new Range("h", Instant.parse("2026-12-02T15:00:00Z"), Instant.parse("2026-12-02T16:00:00Z"));
        List<Range> made = settle(new ArrayList<>(List.of(lastHour)), null, WEEK);
        assertEquals(
                new Range("delivery_history_p20261202_1600", Instant.parse("2026-12-02T16:00:00Z"),
                        Instant.parse("2026-12-03T00:00:00Z")),
                made.get(1), "a short partition up to the next midnight, then days");
        assertEquals(Instant.parse("2026-12-05T00:00:00Z"), made.get(made.size() - 1).to());
    }

    @Test
    void aClockSetBackFindsItsPartitionsAheadAndAddsNothing() {
        Range ahead = new Range("a", TODAY.plus(10, ChronoUnit.DAYS), TODAY.plus(11, ChronoUnit.DAYS));
        assertEquals(Optional.empty(), HistoryPartitions.next(new Layout(NOW, List.of(ahead), null), WEEK));
    }

    /** Applies the steps until there are none (at most 100), as DeliveryHistory does, and returns the ranges. */
    private static List<Range> settle(List<Range> ranges, Instant newestInDefault, Duration retention) {
        for (int i = 0; i < 100; i++) {
            Optional<Step> step = HistoryPartitions.next(new Layout(NOW, List.copyOf(ranges), newestInDefault),
                    retention);
            if (step.isEmpty()) {
                return ranges;
            }
            if (step.get() instanceof Drop d) {
                ranges.removeIf(r -> r.name().equals(d.name()));
            } else if (step.get() instanceof Create c) {
                ranges.add(new Range(c.name(), c.from(), c.to()));
            }
        }
        throw new AssertionError("no end to the steps: " + ranges);
    }
}
