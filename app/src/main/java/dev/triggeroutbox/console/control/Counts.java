package dev.triggeroutbox.console.control;

import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Reused;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What the console's overview shows (totals, breakdowns by app and source kind, activity per minute),
 * read in one pass and shared: every console refreshing, and every part of one refresh, is served from
 * the same snapshot while it is younger than {@code outbox.console.counts-max-age-ms}. A snapshot takes
 * one scan of {@code outbox} and one of {@code dead_letters}, grouped by app and source kind, and of the
 * delivery history only the minutes not yet settled: a minute's history is read once it has been over
 * for a minute (finishing transactions are short) and kept, so a busy history is not counted again
 * at every refresh. Minutes of the last hour are kept per app and source kind, older ones as totals.
 */
@ApplicationScoped
public class Counts {

    /** How far back the activity chart reaches, in whole minutes. */
    public static final int MINUTES = 180;
    /** The breakdowns' window: the current minute and the 59 before it. */
    static final int HOUR = 60;

    @Inject
    Jdbc jdbc;

    /**
     * How old the console's counts may be, in milliseconds. Every console and every part of a refresh
     * share one snapshot this long, so the tables are scanned once per interval however many people
     * watch. Larger: fewer scans of a big backlog; smaller: fresher numbers. At least 0 (0 reads on
     * every call, as consoles arrive).
     */
    @Inject
    @ConfigProperty(name = "outbox.console.counts-max-age-ms", defaultValue = "2000")
    long maxAgeMillis;

    /** Settled minutes of history, by minute since the epoch: counts per app and kind, or one total (key null). */
    private final TreeMap<Long, Map<Group, long[]>> settled = new TreeMap<>();
    /** The last minute read as settled; minutes after it are read again each time. */
    private long settledThrough = Long.MIN_VALUE;

    private Reused<Snapshot, RuntimeException> snapshot;

    @PostConstruct
    void reuse() {
        if (maxAgeMillis < 0) {
            throw new IllegalArgumentException("outbox.console.counts-max-age-ms must be at least 0");
        }
        snapshot = new Reused<>(this::measure, System::nanoTime, TimeUnit.MILLISECONDS.toNanos(maxAgeMillis));
    }

    /** An app and source kind. */
    public record Group(UUID appId, String sourceKind) {
    }

    /** Rows of one group in {@code outbox} and {@code dead_letters}; oldest due age 0 when none is due; {@code held}: parked by a hold. */
    public record Live(Group group, long pending, long scheduled, long inFlight, double oldestDueSeconds, long dead,
            long held) {
    }

    /** Rows of one minute (or, per group, of the breakdowns' hour) that the history shows finished. */
    public record Finished(long delivered, long dead, long failedAttempts, long cancelled) {
        Finished plus(long[] c) {
            return new Finished(delivered + c[0], dead + c[1], failedAttempts + c[2], cancelled + c[3]);
        }

        long[] counts() {
            return new long[] {delivered, dead, failedAttempts, cancelled};
        }
    }

    /**
     * One pass over the tables, on the database clock.
     *
     * @param minutes the activity of the last {@link #MINUTES} whole minutes and the current one, oldest first
     */
    public record Snapshot(Instant asOf, long currentMinute, List<Live> live, Finished[] minutes,
            Map<Group, Finished> lastHour, long deliveredLastMinute) {
    }

    public Snapshot snapshot() {
        return snapshot.get();
    }

    /** A row of the first statement: the database clock, and a group's live rows (none on the clock's own row). */
    private record Measured(Instant asOf, Live live) {
    }

    private Snapshot measure() {
        return jdbc.inConnection(con -> {
            List<Measured> rows = Jdbc.list(con, """
                    WITH live AS (
                        SELECT app_id, source_kind,
                               count(*) FILTER (WHERE NOT leased AND next_attempt_at <= now()) AS pending,
                               count(*) FILTER (WHERE NOT leased AND next_attempt_at > now()
                                                      AND next_attempt_at < 'infinity')            AS scheduled,
                               -- parked by a hold (Holds); a held row not parked yet counts where it is due
                               count(*) FILTER (WHERE NOT leased AND next_attempt_at = 'infinity') AS held,
                               count(*) FILTER (WHERE leased)                                  AS in_flight,
                               min(next_attempt_at) FILTER (WHERE NOT leased AND next_attempt_at <= now()) AS oldest_due
                        -- a row waiting behind its lane's head (V20) counts at its own due time
                        FROM (SELECT app_id, source_kind, coalesce(lane_due_at, next_attempt_at) AS next_attempt_at,
                                     claim_token IS NOT NULL AND lease_expires_at > now() AS leased
                              FROM outbox) o
                        GROUP BY 1, 2
                    ), dead AS (
                        SELECT app_id, source_kind, count(*) AS dead FROM dead_letters GROUP BY 1, 2
                    )
                    SELECT app_id, source_kind, coalesce(pending, 0), coalesce(scheduled, 0), coalesce(in_flight, 0),
                           coalesce(extract(epoch FROM now() - oldest_due), 0), coalesce(dead, 0), now(), coalesce(held, 0)
                    FROM live FULL JOIN dead USING (app_id, source_kind)
                    UNION ALL
                    SELECT NULL, NULL, 0, 0, 0, 0, 0, now(), 0        -- the clock, when both tables are empty
                    """, Jdbc.Binder.NONE, rs -> new Measured(rs.getObject(8, OffsetDateTime.class).toInstant(),
                    rs.getString(2) == null
                            ? null
                            : new Live(new Group(rs.getObject(1, UUID.class), rs.getString(2)),
                                    rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getDouble(6), rs.getLong(7),
                                    rs.getLong(9))));
            Instant asOf = rows.get(rows.size() - 1).asOf();
            return history(con, asOf, rows.stream().map(Measured::live).filter(Objects::nonNull).toList());
        });
    }

    /** Reads the minutes not yet settled, keeps those that now are, and adds up the windows. */
    private synchronized Snapshot history(Connection con, Instant asOf, List<Live> live) {
        long now = Math.floorDiv(asOf.getEpochSecond(), 60);
        long first = now - MINUTES;
        long settles = now - 2; // over for a minute at least
        if (settledThrough > settles) {
            settled.clear(); // the database clock went back: read everything again
            settledThrough = Long.MIN_VALUE;
        }
        settled.headMap(first).clear();
        long from = Math.max(first, settledThrough + 1);
        Map<Long, Map<Group, long[]>> fresh = new HashMap<>();
        long deliveredLastMinute = Jdbc.list(con, """
                SELECT floor(extract(epoch FROM finished_at) / 60)::bigint AS minute, app_id, source_kind,
                       count(*) FILTER (WHERE outcome = 'delivered'),
                       count(*) FILTER (WHERE outcome = 'dead'),
                       -- a delivered row's last attempt succeeded; every attempt of a dead or cancelled one failed
                       coalesce(sum(CASE WHEN outcome = 'delivered' THEN attempt_count - 1 ELSE attempt_count END), 0),
                       count(*) FILTER (WHERE outcome = 'delivered' AND finished_at > ? - interval '1 minute'), -- as of
                       count(*) FILTER (WHERE outcome = 'cancelled')
                FROM delivery_history
                WHERE finished_at >= to_timestamp(? * 60)                                                -- first minute
                GROUP BY 1, 2, 3
                """, p -> p.timestamp(asOf.atOffset(ZoneOffset.UTC)).bigint(from), rs -> {
            Group group = new Group(rs.getObject(2, UUID.class), rs.getString(3));
            fresh.computeIfAbsent(rs.getLong(1), m -> new HashMap<>())
                    .put(group, new long[] {rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(8)});
            return rs.getLong(7);
        }).stream().mapToLong(Long::longValue).sum();
        for (long m = from; m <= settles; m++) {
            settled.put(m, fresh.getOrDefault(m, Map.of()));
        }
        settledThrough = Math.max(settledThrough, settles);
        settled.replaceAll((m, groups) -> m < now - HOUR + 1 && groups.size() > 1 ? total(groups) : groups);

        Finished[] minutes = new Finished[MINUTES + 1];
        Map<Group, Finished> lastHour = new HashMap<>();
        Finished none = new Finished(0, 0, 0, 0);
        for (long m = first; m <= now; m++) {
            Map<Group, long[]> groups = m <= settles
                    ? settled.getOrDefault(m, Map.of())
                    : fresh.getOrDefault(m, Map.of());
            Finished sum = none;
            for (Map.Entry<Group, long[]> e : groups.entrySet()) {
                sum = sum.plus(e.getValue());
                if (m > now - HOUR && e.getKey() != null) {
                    lastHour.merge(e.getKey(), none.plus(e.getValue()), (a, b) -> a.plus(b.counts()));
                }
            }
            minutes[(int) (m - first)] = sum;
        }
        return new Snapshot(asOf, now, List.copyOf(live), minutes, Map.copyOf(lastHour), deliveredLastMinute);
    }

    private static Map<Group, long[]> total(Map<Group, long[]> groups) {
        long[] sum = new long[4];
        for (long[] c : groups.values()) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += c[i];
            }
        }
        Map<Group, long[]> one = new HashMap<>();
        one.put(null, sum);
        return one;
    }
}
