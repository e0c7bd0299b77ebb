package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Where a row stands, wherever it is now: still in the outbox (pending, scheduled, held, in flight),
 * dead-lettered, or finished and kept in the delivery history (delivered, dead or cancelled). Read on the database clock.
 */
@ApplicationScoped
public class RowStatus {

    @Inject
    Jdbc jdbc;

    /**
     * The status of outbox row {@code o} (pending, scheduled, in_flight, held): held while parked by a hold or, for
     * the moment until the dispatcher parks it, while its app is on hold or its trigger held or disabled; a row
     * waiting behind its lane's head is pending or scheduled by its own due time.
     */
    public static final String LIVE_STATUS = """
            CASE WHEN o.claim_token IS NOT NULL AND o.lease_expires_at > now() THEN 'in_flight'
                 WHEN o.held_due_at IS NOT NULL
                   OR EXISTS (SELECT 1 FROM app_holds h WHERE h.app_id = o.app_id)
                   OR EXISTS (SELECT 1 FROM triggers t
                              WHERE t.app_id = o.app_id AND t.id = o.trigger_id AND (t.held OR NOT t.enabled))
                   THEN 'held'
                 WHEN coalesce(o.lane_due_at, o.next_attempt_at) > now() THEN 'scheduled'
                 ELSE 'pending' END""";

    /**
     * Every place a row can be, as one union: the outbox (rank 1), dead letters (2), the delivery
     * history (3; a row replayed from the dead letters has an outcome per finish there, the newest counts). {@code key} picks the rows: {@code "id"} (one row) or {@code "root_execution_id"}
     * (a cascade); the three places take the same parameter.
     */
    private static String places(String key) {
        String historyKey = key.equals("id") ? "outbox_id" : key;
        return """
                -- a held row waits parked (its due time in held_due_at) or, for the moment until the dispatcher parks
                -- it, in the due order with its app on hold or its trigger held or disabled: the claim passes over both
                SELECT 1 AS rank, id, app_id, source_kind, trigger_id, root_execution_id, parent_id, trigger_depth,
                       attempt_count, last_error, created_at,
                       coalesce(held_due_at, lane_due_at, next_attempt_at) AS next_attempt_at,  -- parked: its own due time
                       claimed_by, NULL::timestamptz AS finished_at,
                       %3$s AS status,
                       cancel_requested, traceparent, ordering_key
                FROM outbox o WHERE %1$s = ?
                UNION ALL
                SELECT 2, id, app_id, source_kind, trigger_id, root_execution_id, parent_id, trigger_depth,
                       attempt_count, last_error, created_at, NULL, dead_by, dead_at, 'dead', false, traceparent,
                       ordering_key
                FROM dead_letters WHERE %1$s = ?
                UNION ALL
                -- outcome: delivered, dead or cancelled
                SELECT 3, outbox_id, app_id, source_kind, trigger_id, root_execution_id, parent_id, trigger_depth,
                       attempt_count, last_error, created_at, NULL, finished_by, finished_at, outcome, false, NULL, NULL
                FROM delivery_history WHERE %2$s = ?
                """.formatted(key, historyKey, LIVE_STATUS);
    }

    public Optional<RowState> find(OutboxId id) {
        String sql = "SELECT * FROM (" + places("id") + ") AS places ORDER BY rank, finished_at DESC LIMIT 1";
        return jdbc.first(sql, p -> p.uuid(id.value()).uuid(id.value()).uuid(id.value()), RowStatus::row);
    }

    /**
     * Every row of a cascade (at most {@code limit}), each where it stands now, in creation order.
     */
    public List<RowState> cascade(ExecutionId root, int limit) {
        String sql = "SELECT * FROM (SELECT DISTINCT ON (id) * FROM (" + places("root_execution_id")
                + ") AS places ORDER BY id, rank, finished_at DESC) AS rows ORDER BY created_at, id LIMIT ?";
        return jdbc.list(sql, p -> p.uuid(root.value()).uuid(root.value()).uuid(root.value()).integer(limit),
                RowStatus::row);
    }

    private static RowState row(ResultSet rs) throws SQLException {
        return new RowState(new OutboxId(rs.getObject("id", UUID.class)), new AppId(rs.getObject("app_id", UUID.class)),
                rs.getString("source_kind"), rs.getString("status"), rs.getInt("attempt_count"),
                rs.getInt("trigger_depth"), rs.getBoolean("cancel_requested"),
                TriggerId.ofNullable(rs.getObject("trigger_id", UUID.class)),
                ExecutionId.ofNullable(rs.getObject("root_execution_id", UUID.class)), rs.getString("last_error"),
                rs.getObject("created_at", OffsetDateTime.class), rs.getObject("next_attempt_at", OffsetDateTime.class),
                rs.getObject("finished_at", OffsetDateTime.class), rs.getString("claimed_by"),
                rs.getString("traceparent"),
                rs.getString("ordering_key"), OutboxId.ofNullable(rs.getObject("parent_id", UUID.class)));
    }
}
