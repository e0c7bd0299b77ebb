package dev.triggeroutbox.triggers.entity;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A cron schedule in a time zone. Five fields ({@code minute hour day-of-month month day-of-week})
 * or six with seconds first, each a {@code *}, a value, a range {@code a-b}, a step {@code * /n} or
 * {@code a-b/n} or {@code a/n}, or a comma list of those; months and days may be named
 * ({@code JAN}, {@code MON}); day-of-week 0 and 7 are Sunday; {@code ?} means {@code *}. Macros:
 * {@code @yearly @annually @monthly @weekly @daily @midnight @hourly}. When both day fields are
 * restricted, a day matches either (as in Vixie cron).
 *
 * <p>Daylight saving: a local time that a gap skips fires at the shifted time after the gap; a local
 * time that an overlap repeats fires once, at its first occurrence.
 */
public final class CronSchedule {

    /** How far ahead {@link #next} looks before it says the schedule never fires (e.g. Feb 30). */
    private static final int HORIZON_YEARS = 5;

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0", "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");
    private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG",
            "SEP", "OCT", "NOV", "DEC");
    private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

    private final String expression;
    private final ZoneId zone;
    private final BitSet seconds;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet daysOfMonth;
    private final BitSet months;
    private final BitSet daysOfWeek;
    private final boolean anyDayOfMonth;
    private final boolean anyDayOfWeek;

    private CronSchedule(String expression, ZoneId zone, String[] f) {
        this.expression = expression;
        this.zone = zone;
        this.seconds = field(f[0], "second", 0, 59, List.of());
        this.minutes = field(f[1], "minute", 0, 59, List.of());
        this.hours = field(f[2], "hour", 0, 23, List.of());
        this.daysOfMonth = field(f[3], "day of month", 1, 31, List.of());
        this.months = field(f[4], "month", 1, 12, MONTHS);
        BitSet dow = field(f[5], "day of week", 0, 7, DAYS);
        if (dow.get(7)) {
            dow.set(0);
            dow.clear(7);
        }
        this.daysOfWeek = dow;
        this.anyDayOfMonth = unrestricted(f[3]);
        this.anyDayOfWeek = unrestricted(f[5]);
    }

    /**
     * Parses {@code expression} for {@code zone} (an IANA name such as {@code Europe/Berlin}, or
     * {@code UTC}).
     *
     * @throws IllegalArgumentException with a message fit for the caller when either is malformed
     */
    public static CronSchedule parse(String expression, String zone) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("schedule must not be empty");
        }
        ZoneId zoneId;
        try {
            zoneId = ZoneId.of(zone == null ? "UTC" : zone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException(
                    "unknown time zone '" + zone + "' (use an IANA name such as Europe/Berlin, or UTC)");
        }
        String trimmed = expression.trim();
        String text = MACROS.getOrDefault(trimmed.toLowerCase(Locale.ROOT), trimmed);
        String[] parts = text.split("\\s+");
        String[] fields;
        if (parts.length == 5) {
            fields = new String[] {"0", parts[0], parts[1], parts[2], parts[3], parts[4]};
        } else if (parts.length == 6) {
            fields = parts;
        } else {
            throw new IllegalArgumentException("schedule '" + trimmed + "' has " + parts.length
                    + " fields; use 5 (minute hour day-of-month month day-of-week) or 6 (with seconds first)");
        }
        CronSchedule schedule = new CronSchedule(trimmed, zoneId, fields);
        if (schedule.next(Instant.now()) == null) {
            throw new IllegalArgumentException("schedule '" + trimmed + "' never fires");
        }
        return schedule;
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The first fire strictly after {@code after}, or null when there is none within five years. */
    public Instant next(Instant after) {
        ZonedDateTime start = after.atZone(zone);
        LocalDateTime t = start.toLocalDateTime().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        int lastYear = t.getYear() + HORIZON_YEARS;
        while (t.getYear() <= lastYear) {
            if (!months.get(t.getMonthValue())) {
                t = t.withDayOfMonth(1).toLocalDate().atStartOfDay().plusMonths(1);
            } else if (!dayMatches(t)) {
                t = t.toLocalDate().atStartOfDay().plusDays(1);
            } else if (!hours.get(t.getHour())) {
                t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
            } else if (!minutes.get(t.getMinute())) {
                t = t.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
            } else if (!seconds.get(t.getSecond())) {
                t = t.plusSeconds(1);
            } else {
                // a local time in a gap moves forward; in an overlap the earlier offset is taken
                Instant fire = ZonedDateTime.ofLocal(t, zone, null).toInstant();
                if (fire.isAfter(after)) {
                    return fire;
                }
                t = t.plusSeconds(1);
            }
        }
        return null;
    }

    private boolean dayMatches(LocalDateTime t) {
        boolean dom = daysOfMonth.get(t.getDayOfMonth());
        boolean dow = daysOfWeek.get(t.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : t.getDayOfWeek().getValue());
        if (anyDayOfMonth && anyDayOfWeek) {
            return true;
        }
        if (anyDayOfMonth) {
            return dow;
        }
        if (anyDayOfWeek) {
            return dom;
        }
        return dom || dow;
    }

    private static boolean unrestricted(String field) {
        return field.equals("*") || field.equals("?");
    }

    private static BitSet field(String text, String name, int min, int max, List<String> names) {
        BitSet bits = new BitSet(max + 1);
        for (String part : text.split(",", -1)) {
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), name, 1, max, List.of());
            }
            int from;
            int to;
            if (range.equals("*") || range.equals("?")) {
                from = min;
                to = max;
            } else if (range.indexOf('-') > 0) {
                int dash = range.indexOf('-');
                from = number(range.substring(0, dash), name, min, max, names);
                to = number(range.substring(dash + 1), name, min, max, names);
                if (to < from) {
                    throw new IllegalArgumentException(name + " range '" + range + "' runs backwards");
                }
            } else {
                from = number(range, name, min, max, names);
                // "a/n" means from a to the end in steps of n; a plain value is just itself
                to = slash >= 0 ? max : from;
            }
            for (int v = from; v <= to; v += step) {
                bits.set(v);
            }
        }
        return bits;
    }

    private static int number(String text, String name, int min, int max, List<String> names) {
        int named = names.indexOf(text.toUpperCase(Locale.ROOT));
        if (named >= 0) {
            return named + (names.size() == 12 ? 1 : 0);
        }
        try {
            int v = Integer.parseInt(text);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException(name + " '" + text + "' is not " + (names.isEmpty() ? "" : "a name or ")
                + "a number from " + min + " to " + max);
    }

    @Override
    public String toString() {
        return expression + " (" + zone + ")";
    }
}
