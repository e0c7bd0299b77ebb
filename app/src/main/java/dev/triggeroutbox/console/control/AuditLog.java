package dev.triggeroutbox.console.control;

import dev.triggeroutbox.platform.HousekeepingJob;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Where;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The record of admin actions ({@code admin_audit}): written in the caller's transaction, so an
 * action that rolls back leaves no record, read newest first in pages, and forgotten after
 * {@code outbox.audit.retention-days} by the housekeeping the dispatcher's timer runs.
 */
@ApplicationScoped
public class AuditLog implements HousekeepingJob {

    /** Once a minute: entries are kept for days, and each pass walks the table's time index. */
    static final long PRUNE_EVERY_MILLIS = 60_000;
    /** Entries per delete: one short transaction, whatever the backlog. */
    static final int PRUNE_CHUNK = 10_000;

    /** Action names as stored and as {@code GET /admin/audit?action=} filters them. */
    public static final String REPLAY = "dead-letter.replay";
    public static final String BULK_REPLAY = "dead-letters.bulk-replay";
    public static final String DISCARD = "dead-letter.discard";
    public static final String BULK_DISCARD = "dead-letters.bulk-discard";
    public static final String PAUSE = "dispatcher.pause";
    public static final String RESUME = "dispatcher.resume";
    public static final String TRIGGER_CREATE = "trigger.create";
    public static final String TRIGGER_REPLACE = "trigger.replace";
    public static final String TRIGGER_DELETE = "trigger.delete";
    public static final String TRIGGER_ROTATE_SECRET = "trigger.rotate-secret";
    public static final String TRIGGER_HOLD = "trigger.hold";
    public static final String TRIGGER_RELEASE = "trigger.release";
    public static final String APP_HOLD = "app.hold";
    public static final String APP_RELEASE = "app.release";
    public static final String BULK_CANCEL = "outbox.bulk-cancel";
    public static final String LANE_SKIP = "lane.skip";
    public static final String LANE_RETRY = "lane.retry";

    @Inject
    Jdbc jdbc;

    /**
     * Days an admin action stays on the audit page. A year by default, the span audits usually ask
     * about; shorter keeps less personal data (principals) around; at least 1.
     */
    @Inject
    @ConfigProperty(name = "outbox.audit.retention-days", defaultValue = "365")
    int retentionDays;

    @Transactional(Transactional.TxType.REQUIRED)
    public void record(String principal, String action, List<UUID> targets, JsonObject filter, int affected) {
        jdbc.update("""
                INSERT INTO admin_audit (principal, action, target_ids, filter, affected)
                VALUES (?, ?, ?, ?::jsonb, ?)                  -- who, what, ids, filter, count
                """, p -> p.text(principal).text(action).array("uuid", targets.toArray())
                .text(filter == null ? null : filter.toString()).integer(affected));
    }

    /** The oldest entries past the retention go, a chunk at a time. */
    @Override
    public Pruning pruning() {
        return new Pruning("audit", "outbox.audit.retention-days", retentionDays, PRUNE_EVERY_MILLIS, """
                DELETE FROM admin_audit
                WHERE id = ANY (ARRAY(
                    SELECT id FROM admin_audit
                    WHERE at < now() - ? * interval '1 day'             -- 1: retention
                    ORDER BY at
                    LIMIT ?))                                           -- 2: chunk
                """, PRUNE_CHUNK);
    }

    /** One admin action; {@code filter} is the stored JSON text of the filter it applied (null: none). */
    public record Entry(long id, OffsetDateTime at, String principal, String action, List<UUID> targetIds,
            String filter,
            int affected) {
    }

    /** A page, and the id the next one starts before (null: none). */
    public record Page(List<Entry> items, Long next) {
    }

    /** Newest first; {@code before} is the id where the previous page ended. */
    public Page page(String action, UUID target, int limit, Long before) {
        Where where = new Where()
                .text("action = ?", action)
                .uuid("target_ids @> ARRAY[?::uuid]", target)
                .and(before != null, "id < ?", p -> p.bigint(before));     // the cursor
        List<Entry> items = jdbc.list("""
                SELECT id, at, principal, action, target_ids, filter::text AS filter, affected
                FROM admin_audit
                WHERE %s
                ORDER BY id DESC
                LIMIT ?                                                              -- page size + 1
                """.formatted(where.sql()), p -> p.where(where).integer(limit + 1), AuditLog::entry);
        if (items.size() <= limit) {
            return new Page(items, null);
        }
        return new Page(List.copyOf(items.subList(0, limit)), items.get(limit - 1).id());
    }

    private static Entry entry(ResultSet rs) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        for (Object id : (Object[]) rs.getArray("target_ids").getArray()) {
            ids.add(UUID.fromString(id.toString())); // as the driver gives uuid[] elements, UUID or text
        }
        return new Entry(rs.getLong("id"), rs.getObject("at", OffsetDateTime.class), rs.getString("principal"),
                rs.getString("action"), ids, rs.getString("filter"), rs.getInt("affected"));
    }
}
