package dev.triggeroutbox.triggers.control;

import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.triggers.entity.CronSchedule;
import dev.triggeroutbox.triggers.entity.Schedule;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Fires cron triggers. Every node runs a pass on each dispatcher tick; a pass locks the due cron
 * triggers ({@code FOR UPDATE SKIP LOCKED}), writes one outbox row per fire and moves each
 * trigger's {@code next_fire_at} past now, all in one transaction. A node that comes second finds
 * the trigger locked or no longer due, so each fire enqueues exactly one row cluster-wide. Every
 * time is the database's ({@code now()}), never a node's clock.
 *
 * <p>A fire more than {@code outbox.cron.misfire-grace-ms} late counts as missed (no node ran at
 * the time): with {@code fire_once} the missed fires of a trigger enqueue one row together, which
 * says how many there were; with {@code skip} they enqueue nothing.
 */
@ApplicationScoped
public class CronFires {

    private static final Logger LOG = Logger.getLogger(CronFires.class.getName());
    /** Triggers fired per pass; the rest wait for the next tick. */
    private static final int TRIGGERS_PER_PASS = 200;
    /** Fires of one trigger counted per pass; a longer backlog is counted as this many. */
    private static final int MAX_COUNTED_FIRES = 10_000;
    /** A stored schedule that no longer parses is looked at again after this long. */
    private static final Duration BROKEN_RETRY = Duration.ofHours(1);

    @Inject
    DataSource dataSource;

    @Inject
    CommitWakeup wakeup;

    @Inject
    @ConfigProperty(name = "outbox.cron.misfire-grace-ms", defaultValue = "60000")
    long misfireGraceMillis;

    private final Map<Schedule, CronSchedule> compiled = new ConcurrentHashMap<>();

    /** One due trigger, locked. */
    private record Due(UUID id, UUID appId, UUID scriptId, Schedule schedule, Instant nextFireAt) {
    }

    /** One row to write for one trigger. */
    private record Fire(Due trigger, Instant scheduledAt, int missed, Instant firstMissedAt) {
    }

    @Transactional(TxType.REQUIRES_NEW)
    /** One firing pass; returns the rows it wrote. */
    public int fireDue() throws SQLException {
        try (Connection con = dataSource.getConnection()) {
            Instant now = null;
            List<Due> due = new ArrayList<>();
            try (PreparedStatement ps = con.prepareStatement("""
                    SELECT id, app_id, script_id, schedule, timezone, misfire, next_fire_at, now()
                    FROM triggers
                    WHERE source_kind = 'cron' AND enabled AND schedule IS NOT NULL
                      AND (next_fire_at IS NULL OR next_fire_at <= now())
                    ORDER BY next_fire_at NULLS FIRST
                    LIMIT ?
                    FOR UPDATE SKIP LOCKED
                    """)) {
                ps.setInt(1, TRIGGERS_PER_PASS);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Timestamp next = rs.getTimestamp(7);
                        due.add(new Due(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
                                rs.getObject(3, UUID.class),
                                new Schedule(rs.getString(4), rs.getString(5),
                                        Schedule.Misfire.fromWire(rs.getString(6)).orElse(Schedule.Misfire.FIRE_ONCE)),
                                next == null ? null : next.toInstant()));
                        now = rs.getTimestamp(8).toInstant();
                    }
                }
            }
            if (due.isEmpty()) {
                return 0;
            }
            List<Fire> fires = new ArrayList<>();
            Map<UUID, Instant> nextFires = new HashMap<>();
            for (Due d : due) {
                CronSchedule cron = compile(d.schedule());
                if (cron == null) {
                    nextFires.put(d.id(), now.plus(BROKEN_RETRY));
                    continue;
                }
                if (d.nextFireAt() != null) {
                    fires.addAll(firesOf(d, cron, now));
                }
                nextFires.put(d.id(), cron.next(now));
            }
            write(con, fires, now);
            advance(con, nextFires, now);
            int rows = fires.size();
            wakeup.written(SourceKind.CRON, rows);
            return rows;
        }
    }

    /** The rows one due trigger writes now: one per fire on time, and per its misfire policy for missed ones. */
    private List<Fire> firesOf(Due d, CronSchedule cron, Instant now) {
        Instant missedBefore = now.minusMillis(misfireGraceMillis);
        List<Fire> fires = new ArrayList<>();
        int missed = 0;
        Instant firstMissed = null;
        Instant lastMissed = null;
        int counted = 0;
        for (Instant at = d.nextFireAt(); at != null && !at.isAfter(now)
                && counted < MAX_COUNTED_FIRES; at = cron.next(at)) {
            counted++;
            if (at.isBefore(missedBefore)) {
                missed++;
                firstMissed = firstMissed == null ? at : firstMissed;
                lastMissed = at;
            } else {
                fires.add(new Fire(d, at, 0, null));
            }
        }
        if (missed > 0) {
            if (d.schedule().misfire() == Schedule.Misfire.FIRE_ONCE) {
                fires.add(0, new Fire(d, lastMissed, missed, firstMissed));
            }
            int count = missed;
            LOG.info(() -> "cron trigger " + d.id() + " missed " + count + " fire(s) from " + d.nextFireAt()
                    + (d.schedule().misfire() == Schedule.Misfire.FIRE_ONCE
                            ? ": fired once for them"
                            : ": skipped them"));
        }
        return fires;
    }

    private CronSchedule compile(Schedule schedule) {
        try {
            return compiled.computeIfAbsent(schedule, Schedule::compiled);
        } catch (IllegalArgumentException e) {
            LOG.warning(
                    () -> "cron schedule " + schedule + " does not parse (" + e.getMessage() + "); looked at again in "
                            + BROKEN_RETRY.toHours() + " h");
            return null;
        }
    }

    private static void write(Connection con, List<Fire> fires, Instant now) {
        if (fires.isEmpty()) {
            return;
        }
        int n = fires.size();
        UUID[] triggers = new UUID[n];
        UUID[] apps = new UUID[n];
        UUID[] scripts = new UUID[n];
        String[] payloads = new String[n];
        for (int i = 0; i < n; i++) {
            Fire f = fires.get(i);
            triggers[i] = f.trigger().id();
            apps[i] = f.trigger().appId();
            scripts[i] = f.trigger().scriptId();
            payloads[i] = payload(f, now);
        }
        OutboxWriter.cronFires(con, triggers, apps, scripts, payloads);
    }

    private static void advance(Connection con, Map<UUID, Instant> nextFires, Instant now) throws SQLException {
        try (PreparedStatement ps = con.prepareStatement("""
                UPDATE triggers t SET next_fire_at = n.next_fire_at,
                       last_fired_at = CASE WHEN t.next_fire_at IS NULL THEN t.last_fired_at ELSE ? END
                FROM unnest(?::uuid[], ?::timestamptz[]) AS n(id, next_fire_at)
                WHERE t.id = n.id
                """)) {
            List<UUID> ids = new ArrayList<>(nextFires.keySet());
            ps.setObject(1, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
            ps.setArray(2, con.createArrayOf("uuid", ids.toArray()));
            // a schedule that never fires again (none within five years) is parked at 'infinity'
            ps.setArray(3, con.createArrayOf("timestamptz", ids.stream()
                    .map(id -> nextFires.get(id) == null ? "infinity" : time(nextFires.get(id))).toArray()));
            ps.executeUpdate();
        }
    }

    private static String payload(Fire f, Instant now) {
        JsonObjectBuilder cron = Jsons.object()
                .add("triggerId", f.trigger().id().toString())
                .add("schedule", f.trigger().schedule().cron())
                .add("timezone", f.trigger().schedule().timezone())
                .add("scheduledAt", time(f.scheduledAt()))
                .add("firedAt", time(now))
                .add("missedFires", f.missed());
        if (f.firstMissedAt() != null) {
            cron.add("firstMissedAt", time(f.firstMissedAt()));
        }
        return Jsons.object().add("cron", cron).build().toString();
    }

    private static String time(Instant at) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(at.atOffset(ZoneOffset.UTC));
    }
}
