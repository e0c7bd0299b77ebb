package dev.triggeroutbox.triggers.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class CronScheduleTest {

    private static Instant next(String cron, String zone, String after) {
        return CronSchedule.parse(cron, zone).next(Instant.parse(after));
    }

    @Test
    void everySecondAndEveryFiveMinutes() {
        assertEquals(Instant.parse("2026-03-01T10:00:01Z"), next("* * * * * *", "UTC", "2026-03-01T10:00:00Z"));
        assertEquals(Instant.parse("2026-03-01T10:00:01Z"), next("* * * * * *", "UTC", "2026-03-01T10:00:00.500Z"));
        assertEquals(Instant.parse("2026-03-01T10:05:00Z"), next("*/5 * * * *", "UTC", "2026-03-01T10:00:00Z"));
        assertEquals(Instant.parse("2026-03-01T10:00:00Z"), next("*/5 * * * *", "UTC", "2026-03-01T09:59:59.999Z"));
    }

    @Test
    void rangesListsStepsAndNames() {
        // 9:30 on weekdays: from Friday evening the next is Monday
        assertEquals(Instant.parse("2026-03-02T09:30:00Z"), next("30 9 * * MON-FRI", "UTC", "2026-02-27T18:00:00Z"));
        assertEquals(Instant.parse("2026-03-01T10:20:00Z"), next("0,20,40 * * * *", "UTC", "2026-03-01T10:00:00Z"));
        assertEquals(Instant.parse("2026-03-01T10:00:15Z"), next("15/20 * * * * *", "UTC", "2026-03-01T10:00:00Z"));
        assertEquals(Instant.parse("2026-06-01T00:00:00Z"), next("0 0 1 jun *", "UTC", "2026-03-01T10:00:00Z"));
        // Sunday is 0 and 7
        assertEquals(Instant.parse("2026-03-08T00:00:00Z"), next("0 0 * * 7", "UTC", "2026-03-02T00:00:00Z"));
        assertEquals(Instant.parse("2026-03-08T00:00:00Z"), next("0 0 * * 0", "UTC", "2026-03-02T00:00:00Z"));
    }

    @Test
    void bothDayFieldsRestrictedMatchEither() {
        // the 13th or any Friday: 2026-03-06 is a Friday, before the 13th
        assertEquals(Instant.parse("2026-03-06T00:00:00Z"), next("0 0 13 * FRI", "UTC", "2026-03-01T00:00:00Z"));
    }

    @Test
    void macrosAndLeapDays() {
        assertEquals(Instant.parse("2027-01-01T00:00:00Z"), next("@yearly", "UTC", "2026-03-01T00:00:00Z"));
        assertEquals(Instant.parse("2026-03-01T11:00:00Z"), next("@hourly", "UTC", "2026-03-01T10:00:00Z"));
        assertEquals(Instant.parse("2028-02-29T00:00:00Z"), next("0 0 29 2 *", "UTC", "2026-03-01T00:00:00Z"));
    }

    @Test
    void timeZonesAndDaylightSaving() {
        // 09:00 in Berlin is 08:00 UTC in winter, 07:00 UTC in summer
        assertEquals(Instant.parse("2026-01-05T08:00:00Z"), next("0 9 * * *", "Europe/Berlin", "2026-01-05T00:00:00Z"));
        assertEquals(Instant.parse("2026-07-06T07:00:00Z"), next("0 9 * * *", "Europe/Berlin", "2026-07-06T00:00:00Z"));
        // 02:30 does not exist on 2026-03-29 in Berlin: it fires at 03:30 local (01:30 UTC)
        assertEquals(Instant.parse("2026-03-29T01:30:00Z"),
                next("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z"));
        // 02:30 happens twice on 2026-10-25 in Berlin: it fires once, at the first (00:30 UTC)
        Instant first = next("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z");
        assertEquals(Instant.parse("2026-10-25T00:30:00Z"), first);
        assertEquals(Instant.parse("2026-10-26T01:30:00Z"),
                CronSchedule.parse("30 2 * * *", "Europe/Berlin").next(first));
    }

    @Test
    void malformedSchedulesSayWhy() {
        assertMessage("has 4 fields", "* * * *", "UTC");
        assertMessage("minute '60'", "60 * * * *", "UTC");
        assertMessage("runs backwards", "0 5-2 * * *", "UTC");
        assertMessage("never fires", "0 0 30 2 *", "UTC");
        assertMessage("unknown time zone", "* * * * *", "Mars/Olympus");
        assertMessage("month 'FOO'", "0 0 1 FOO *", "UTC");
        assertMessage("must not be empty", " ", "UTC");
        assertMessage("second ''", "1,,2 * * * * *", "UTC");
    }

    private static void assertMessage(String part, String cron, String zone) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CronSchedule.parse(cron, zone));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
