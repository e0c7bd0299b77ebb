package dev.triggeroutbox.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** What one scenario saw, and whether its guarantee held. Filled by the scenario, printed by {@link Faults}. */
final class Verdict {

    final int scenario;
    final String title;
    long sent;
    long unacknowledged;
    long delivered;
    long extra;
    final List<UUID> lost = new ArrayList<>();
    final Map<UUID, String> duplicates = new TreeMap<>();
    long fenced;
    long leaseRecoveries;
    Long drainMillis;
    final List<String> figures = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    /** Latency bars missed: on two shared cores a rare stall can miss one, so such a scenario may be run once more. */
    final List<String> timingFailures = new ArrayList<>();
    final List<String> lostStatus = new ArrayList<>();
    boolean skipped;

    Verdict(int scenario, String title) {
        this.scenario = scenario;
        this.title = title;
    }

    void fail(String format, Object... args) {
        failures.add(String.format(Locale.ROOT, format, args));
    }

    void figure(String format, Object... args) {
        figures.add(String.format(Locale.ROOT, format, args));
    }

    void require(boolean ok, String format, Object... args) {
        if (!ok) {
            fail(format, args);
        }
    }

    /** As {@link #require}, for a latency bar: its miss alone does not fail a scenario run again ({@link Faults}). */
    void requireTiming(boolean ok, String format, Object... args) {
        if (!ok) {
            timingFailures.add(String.format(Locale.ROOT, format, args));
        }
    }

    boolean passed() {
        return failures.isEmpty() && timingFailures.isEmpty() && !skipped;
    }

    /** Failed on latency bars only: nothing lost, nothing delivered twice that should not have been. */
    boolean missedOnlyTiming() {
        return failures.isEmpty() && !timingFailures.isEmpty();
    }

    String outcome() {
        return skipped ? "SKIP" : passed() ? "PASS" : "FAIL";
    }

    String report() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "scenario %d: %s — %s%n", scenario, title, outcome()));
        b.append(String.format(Locale.ROOT,
                "  sent (acknowledged) %,d · not acknowledged %,d · delivered %,d · lost %,d · "
                        + "duplicated %,d · delivered without acknowledgement %,d%n",
                sent, unacknowledged, delivered, lost.size(), duplicates.size(), extra));
        b.append(String.format(Locale.ROOT,
                "  fenced late completions %,d · lease recoveries %,d · time to drain after healing %s%n",
                fenced, leaseRecoveries,
                drainMillis == null ? "-" : String.format(Locale.ROOT, "%.1f s", drainMillis / 1000.0)));
        figures.forEach(f -> b.append("  ").append(f).append('\n'));
        if (!duplicates.isEmpty()) {
            b.append("  duplicated rows (id: each delivery's time after the first #attempt):\n");
            duplicates.entrySet().stream().limit(20)
                    .forEach(e -> b.append("    ").append(e.getKey()).append(':').append(e.getValue()).append('\n'));
            if (duplicates.size() > 20) {
                b.append("    … (").append(duplicates.size() - 20).append(" more)\n");
            }
        }
        if (!lost.isEmpty()) {
            b.append("  lost rows: ");
            lost.stream().limit(20).forEach(id -> b.append(id).append(' '));
            b.append('\n');
            lostStatus.forEach(s -> b.append("    ").append(s).append('\n'));
        }
        failures.forEach(f -> b.append("  FAILED: ").append(f).append('\n'));
        timingFailures.forEach(f -> b.append("  FAILED (latency): ").append(f).append('\n'));
        return b.toString();
    }
}
