package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.rest.control.Jsons;
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
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Where a row stands, wherever it is now: still in the outbox (pending, scheduled, in flight),
 * dead-lettered, or finished and kept in the delivery history. Read on the database clock.
 */
@ApplicationScoped
public class RowStatus {

    /** A row's status and its app (the caller's access is checked against the app). */
    public record Found(UUID appId, JsonObject json) {
    }

    @Inject
    DataSource dataSource;

    public Optional<Found> find(OutboxId id) throws SQLException {
        String sql = """
                SELECT * FROM (
                    SELECT 1 AS rank, id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth,
                           attempt_count, last_error, created_at, next_attempt_at, claimed_by, NULL::timestamptz AS finished_at,
                           CASE WHEN claim_token IS NOT NULL AND lease_expires_at > now() THEN 'in_flight'
                                WHEN next_attempt_at > now() THEN 'scheduled'
                                ELSE 'pending' END AS status
                    FROM outbox WHERE id = ?                                   -- 1
                    UNION ALL
                    SELECT 2, id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth,
                           attempt_count, last_error, created_at, NULL, dead_by, dead_at, 'dead'
                    FROM dead_letters WHERE id = ?                             -- 2
                    UNION ALL
                    SELECT 3, outbox_id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth,
                           attempt_count, last_error, created_at, NULL, finished_by, finished_at, outcome
                    FROM delivery_history WHERE outbox_id = ?                  -- 3
                ) AS places
                ORDER BY rank LIMIT 1
                """;
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            for (int i = 1; i <= 3; i++) {
                ps.setObject(i, id.value());
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                UUID app = rs.getObject("app_id", UUID.class);
                JsonObjectBuilder json = Jsons.object()
                        .add("id", id.toString())
                        .add("appId", app.toString())
                        .add("sourceKind", rs.getString("source_kind"))
                        .add("status", rs.getString("status"))
                        .add("attemptCount", rs.getInt("attempt_count"))
                        .add("triggerDepth", rs.getInt("trigger_depth"));
                addUuid(json, "triggerId", rs.getObject("trigger_id", UUID.class));
                addUuid(json, "rootExecutionId", rs.getObject("root_execution_id", UUID.class));
                addText(json, "lastError", rs.getString("last_error"));
                addText(json, "createdAt", time(rs.getObject("created_at", OffsetDateTime.class)));
                addText(json, "nextAttemptAt", time(rs.getObject("next_attempt_at", OffsetDateTime.class)));
                addText(json, "finishedAt", time(rs.getObject("finished_at", OffsetDateTime.class)));
                addText(json, "node", rs.getString("claimed_by"));
                return Optional.of(new Found(app, json.build()));
            }
        }
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
