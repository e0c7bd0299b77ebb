package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Where a row stands, wherever it is now: still in the outbox (pending, scheduled, held, in flight),
 * dead-lettered, or finished and kept in the delivery history (delivered, dead or cancelled). Read on the database clock.
 */
@ApplicationScoped
public class RowStatus {

    /** A row's status and its app (the caller's access is checked against the app). */
    public record Found(UUID appId, JsonObject json) {

        /** The row as its producer sees it: without the node that claimed it (a host name and process id is the operator's). */
        public JsonObject forProducer() {
            JsonObjectBuilder b = Jsons.object();
            json.forEach((name, value) -> {
                if (!name.equals("node")) {
                    b.add(name, value);
                }
            });
            return b.build();
        }
    }

    @Inject
    DataSource dataSource;

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

    public Optional<Found> find(OutboxId id) throws SQLException {
        String sql = "SELECT * FROM (" + places("id") + ") AS places ORDER BY rank, finished_at DESC LIMIT 1";
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 1; i <= 3; i++) {
                ps.setObject(i, id.value());
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                UUID app = rs.getObject("app_id", UUID.class);
                return Optional.of(new Found(app, row(rs).build()));
            }
        }
    }

    /**
     * Every row of a cascade (at most {@code limit}), each where it stands now, in creation order.
     * Each row is a JSON object as {@link #find} gives, plus {@code parentId}.
     */
    public List<JsonObject> cascade(ExecutionId root, int limit) throws SQLException {
        String sql = "SELECT * FROM (SELECT DISTINCT ON (id) * FROM (" + places("root_execution_id")
                + ") AS places ORDER BY id, rank, finished_at DESC) AS rows ORDER BY created_at, id LIMIT ?";
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 1; i <= 3; i++) {
                ps.setObject(i, root.value());
            }
            ps.setInt(4, limit);
            List<JsonObject> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    JsonObjectBuilder json = row(rs);
                    addUuid(json, "parentId", rs.getObject("parent_id", UUID.class));
                    rows.add(json.build());
                }
            }
            return rows;
        }
    }

    private static JsonObjectBuilder row(ResultSet rs) throws SQLException {
        JsonObjectBuilder json = Jsons.object()
                .add("id", rs.getObject("id", UUID.class).toString())
                .add("appId", rs.getObject("app_id", UUID.class).toString())
                .add("sourceKind", rs.getString("source_kind"))
                .add("status", rs.getString("status"))
                .add("attemptCount", rs.getInt("attempt_count"))
                .add("triggerDepth", rs.getInt("trigger_depth"))
                // in flight and cancelled: it ends cancelled once its attempt is over, unless that attempt delivers
                .add("cancelRequested", rs.getBoolean("cancel_requested"));
        addUuid(json, "triggerId", rs.getObject("trigger_id", UUID.class));
        addUuid(json, "rootExecutionId", rs.getObject("root_execution_id", UUID.class));
        addText(json, "lastError", rs.getString("last_error"));
        addText(json, "createdAt", time(rs.getObject("created_at", OffsetDateTime.class)));
        addText(json, "nextAttemptAt", time(rs.getObject("next_attempt_at", OffsetDateTime.class)));
        addText(json, "finishedAt", time(rs.getObject("finished_at", OffsetDateTime.class)));
        addText(json, "node", rs.getString("claimed_by"));
        // the trace context it is delivered with; history keeps none
        addText(json, "traceparent", rs.getString("traceparent"));
        // its lane, while it waits or is dead; history keeps none
        addText(json, "orderingKey", rs.getString("ordering_key"));
        return json;
    }

    private static void addUuid(JsonObjectBuilder json, String name, UUID value) {
        addText(json, name, value == null ? null : value.toString());
    }

    /** Absent values are JSON null, so every status has the same fields. */
    private static void addText(JsonObjectBuilder json, String name, String value) {
        if (value == null) {
            json.addNull(name);
        } else {
            json.add(name, value);
        }
    }

    static String time(OffsetDateTime t) {
        return t == null ? null : DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }
}
