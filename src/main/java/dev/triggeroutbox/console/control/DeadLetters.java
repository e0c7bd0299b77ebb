package dev.triggeroutbox.console.control;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.UUID;
import javax.sql.DataSource;

/** Dead letters for the admin API: pages newest first, replay back into the outbox, discard. */
@ApplicationScoped
public class DeadLetters {

    /** Where a page starts: after this (dead_at, id), in descending order. */
    public record Cursor(OffsetDateTime deadAt, UUID id) {
        public String encode() {
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString((deadAt.toString() + "|" + id).getBytes(StandardCharsets.UTF_8));
        }

        /** Throws IllegalArgumentException for anything that is not a cursor this API handed out. */
        public static Cursor decode(String text) {
            try {
                String[] parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8).split("\\|");
                return new Cursor(OffsetDateTime.parse(parts[0]), UUID.fromString(parts[1]));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not a cursor", e);
            }
        }
    }

    @Inject
    DataSource dataSource;

    public JsonObject page(AppId app, SourceKind kind, int limit, Cursor after) throws SQLException {
        String sql = """
                SELECT id, app_id, source_kind, trigger_id, root_execution_id, trigger_depth, attempt_count,
                       last_error, created_at, dead_at, payload::text AS payload
                FROM dead_letters
                WHERE (?::uuid IS NULL OR app_id = ?::uuid)                           -- 1, 2: app filter
                  AND (?::text IS NULL OR source_kind = ?::text)                      -- 3, 4: kind filter
                  AND (?::timestamptz IS NULL OR (dead_at, id) < (?::timestamptz, ?::uuid))  -- 5..7: cursor
                ORDER BY dead_at DESC, id DESC
                LIMIT ?                                                               -- 8: page size + 1
                """;
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            UUID appId = app == null ? null : app.value();
            String wire = kind == null ? null : kind.wire();
            ps.setObject(1, appId, Types.OTHER);
            ps.setObject(2, appId, Types.OTHER);
            ps.setString(3, wire);
            ps.setString(4, wire);
            ps.setObject(5, after == null ? null : after.deadAt(), Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(6, after == null ? null : after.deadAt(), Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(7, after == null ? null : after.id(), Types.OTHER);
            ps.setInt(8, limit + 1);
            JsonArrayBuilder items = Jsons.array();
            Cursor last = null;
            boolean more = false;
            try (ResultSet rs = ps.executeQuery()) {
                for (int n = 0; rs.next(); n++) {
                    if (n == limit) {
                        more = true; // the extra row only says that another page exists
                        break;
                    }
                    OffsetDateTime deadAt = rs.getObject("dead_at", OffsetDateTime.class);
                    items.add(json(rs, deadAt));
                    last = new Cursor(deadAt, rs.getObject("id", UUID.class));
                }
            }
            JsonObjectBuilder page = Jsons.object().add("items", items);
            if (more) {
                page.add("nextCursor", last.encode());
            } else {
                page.addNull("nextCursor");
            }
            return page.build();
        }
    }

    private static JsonObject json(ResultSet rs, OffsetDateTime deadAt) throws SQLException {
        JsonObjectBuilder json = Jsons.object()
                .add("id", rs.getObject("id", UUID.class).toString())
                .add("appId", rs.getObject("app_id", UUID.class).toString())
                .add("sourceKind", rs.getString("source_kind"))
                .add("attemptCount", rs.getInt("attempt_count"))
                .add("triggerDepth", rs.getInt("trigger_depth"))
                .add("lastError", rs.getString("last_error"))
                .add("createdAt", utc(rs.getObject("created_at", OffsetDateTime.class)))
                .add("deadAt", utc(deadAt));
        UUID trigger = rs.getObject("trigger_id", UUID.class);
        UUID root = rs.getObject("root_execution_id", UUID.class);
        if (trigger == null) {
            json.addNull("triggerId");
        } else {
            json.add("triggerId", trigger.toString());
        }
        if (root == null) {
            json.addNull("rootExecutionId");
        } else {
            json.add("rootExecutionId", root.toString());
        }
        json.add("payload", Jsons.reader(rs.getString("payload")).readValue());
        return json.build();
    }

    private static String utc(OffsetDateTime t) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }

    /**
     * Puts a dead letter back into the outbox under its own id, due now, with its attempts reset.
     * Returns false when there is no such dead letter.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public boolean replay(OutboxId id, String by) throws SQLException {
        String sql = """
                WITH revived AS (
                    DELETE FROM dead_letters WHERE id = ?                         -- 1
                    RETURNING *
                )
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                                    origin_principal, trigger_depth, root_execution_id, parent_id, last_error)
                SELECT id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                       origin_principal, trigger_depth, root_execution_id, parent_id,
                       'replayed by ' || ? || ' after: ' || last_error             -- 2: admin
                FROM revived
                """;
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setObject(1, id.value());
            ps.setString(2, by);
            return ps.executeUpdate() == 1;
        }
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public boolean discard(OutboxId id) throws SQLException {
        try (Connection con = dataSource.getConnection();
                PreparedStatement ps = con.prepareStatement("DELETE FROM dead_letters WHERE id = ?")) {
            ps.setObject(1, id.value());
            return ps.executeUpdate() == 1;
        }
    }
}
