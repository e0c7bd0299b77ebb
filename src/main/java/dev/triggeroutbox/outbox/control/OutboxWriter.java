package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.inject.Inject;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Writes outbox rows on the caller's connection, so inside the caller's JTA transaction: a row
 * exists if and only if that transaction commits. One statement per call, also for fan-out. Besides
 * {@link BatchWriter}'s batches and the dead-letter events the dispatcher's finish statement writes (a part of
 * that one statement, in {@code Claims}), every {@code INSERT INTO outbox} is here: producers' rows, fan-out,
 * cron fires and replayed dead letters.
 */
@ApplicationScoped
public class OutboxWriter {

    /** A row written by fan-out and the trigger it is for. */
    public record FannedOut(OutboxId id, TriggerId triggerId) {
    }

    @Inject
    DataSource dataSource;

    /** Writes {@code row}, carrying {@code trace} (null: none) to its deliveries. */
    public OutboxId insert(NewOutboxRow row, TraceContext trace) throws SQLException {
        OutboxId id = OutboxId.random();
        String sql = """
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                                    origin_principal, trigger_depth, root_execution_id, max_attempts,
                                    next_attempt_at, parent_id, traceparent, tracestate, ordering_key)
                SELECT ?::uuid, ?::uuid, ?::text, ?::uuid, ?::uuid, ?::uuid, CAST(? AS jsonb), ?::text, ?::int,
                       ?::uuid, ?::int,
                       greatest(?::timestamptz, now()),                  -- 12: deliver at, never before now
                       ?::uuid,                                          -- 13: parent
                       ?::text, ?::text,                                 -- 14, 15: trace context
                       ?::text                                           -- 16: ordering key (lane_seq: its default)
                WHERE ?::uuid IS NULL                                    -- 17, 18, 19: a trigger, if named,
                   OR EXISTS (SELECT 1 FROM triggers WHERE id = ?::uuid AND app_id = ?)  -- must be the app's
                """;
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setObject(1, id.value());
            ps.setObject(2, row.appId().value());
            ps.setString(3, row.sourceKind().wire());
            ps.setObject(4, row.triggerId() == null ? null : row.triggerId().value(), Types.OTHER);
            ps.setObject(5, row.scriptId() == null ? null : row.scriptId().value(), Types.OTHER);
            ps.setObject(6, row.replyTo() == null ? null : row.replyTo().value(), Types.OTHER);
            ps.setString(7, row.payload());
            ps.setString(8, row.originPrincipal());
            ps.setInt(9, row.triggerDepth());
            // a row without a given root starts its own cascade
            ps.setObject(10, row.rootExecutionId() == null ? id.value() : row.rootExecutionId().value());
            ps.setObject(11, row.maxAttempts(), Types.INTEGER);
            ps.setObject(12, row.deliverAt(), Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(13, row.parentId() == null ? null : row.parentId().value(), Types.OTHER);
            ps.setString(14, trace == null ? null : trace.traceparent());
            ps.setString(15, trace == null ? null : trace.tracestate());
            ps.setString(16, row.orderingKey());
            ps.setObject(17, row.triggerId() == null ? null : row.triggerId().value(), Types.OTHER);
            ps.setObject(18, row.triggerId() == null ? null : row.triggerId().value(), Types.OTHER);
            ps.setObject(19, row.appId().value());
            if (ps.executeUpdate() == 0) {
                throw new UnknownTriggerException(row.triggerId(), row.appId());
            }
        }
        return id;
    }

    /**
     * Writes one row per enabled trigger of {@code (app, kind)}, in one statement. Returns the rows
     * written; none when no trigger matches. {@code parent} is the row whose delivery publishes, if any;
     * every row carries {@code orderingKey} (null: none; each row is in its own trigger's lane of that key) and
     * {@code trace} (null: none) to its deliveries.
     */
    public List<FannedOut> fanOut(AppId app, SourceKind kind, String payload, String originPrincipal,
            ExecutionId root, int depth, OffsetDateTime deliverAt, OutboxId parent, String orderingKey,
            TraceContext trace) throws SQLException {
        String sql = """
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, payload, origin_principal,
                                    trigger_depth, root_execution_id, next_attempt_at, parent_id, traceparent,
                                    tracestate, ordering_key)
                SELECT gen_random_uuid(), t.app_id, t.source_kind, t.id, t.script_id,
                       CAST(? AS jsonb),                                 -- 1: payload
                       ?,                                                -- 2: origin principal
                       ?,                                                -- 3: trigger depth
                       ?,                                                -- 4: root execution id
                       greatest(?, now()),                               -- 5: deliver at, never before now
                       ?,                                                -- 6: parent
                       ?, ?,                                             -- 7, 8: trace context
                       ?::text                                           -- 9: ordering key
                FROM triggers t
                WHERE t.app_id = ? AND t.source_kind = ? AND t.enabled   -- 10, 11: app and kind
                RETURNING id, trigger_id
                """;
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setString(1, payload);
            ps.setString(2, originPrincipal);
            ps.setInt(3, depth);
            ps.setObject(4, root.value());
            ps.setObject(5, deliverAt, Types.TIMESTAMP_WITH_TIMEZONE);
            ps.setObject(6, parent == null ? null : parent.value(), Types.OTHER);
            ps.setString(7, trace == null ? null : trace.traceparent());
            ps.setString(8, trace == null ? null : trace.tracestate());
            ps.setString(9, orderingKey);
            ps.setObject(10, app.value());
            ps.setString(11, kind.wire());
            List<FannedOut> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new FannedOut(new OutboxId(rs.getObject(1, UUID.class)),
                            new TriggerId(rs.getObject(2, UUID.class))));
                }
            }
            return rows;
        }
    }

    /**
     * One {@code cron} row per fire, on {@code con} (the transaction that claimed the due triggers and moves them on):
     * each fire is its own root. The arrays are the fires' columns, in the same order.
     */
    public static void cronFires(Connection con, UUID[] triggers, UUID[] apps, UUID[] scripts, String[] payloads) {
        UUID[] ids = new UUID[triggers.length];
        Arrays.setAll(ids, i -> UUID.randomUUID());
        Jdbc.update(con, """
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, payload, origin_principal,
                                    trigger_depth, root_execution_id)
                SELECT f.id, f.app_id, 'cron', f.trigger_id, f.script_id, f.payload, 'cron', 0, f.id
                FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::jsonb[]) AS f(id, app_id, trigger_id, script_id, payload)
                """, p -> p.array("uuid", ids).array("uuid", apps).array("uuid", triggers).array("uuid", scripts)
                        .array("jsonb", payloads));
    }

    /**
     * Moves dead letters back into the outbox under their own ids, due now, attempts reset, with the attempt budget
     * the row had (null: its trigger's, or the default), its trace context and its lane's place; answers their ids.
     * {@code revived} is a {@code WITH revived AS (DELETE FROM dead_letters … RETURNING *)} query, whose parameters
     * {@code which} binds: the caller chooses the dead letters, in the same statement. The answer "dead" stored for a
     * revived invoke goes, so its caller waits for the new attempt's answer.
     */
    public static List<UUID> revive(Connection con, String revived, Jdbc.Binder which, String by) {
        return Jdbc.list(con, revived + """
                , forgotten AS (
                    -- an invoke's answer was its dead letter: the revived row is to answer anew
                    DELETE FROM replies WHERE outcome = 'dead' AND id IN (SELECT reply_to FROM revived)
                )
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                                    origin_principal, trigger_depth, root_execution_id, parent_id, max_attempts, last_error,
                                    traceparent, tracestate, ordering_key, lane_seq)
                SELECT id, app_id, source_kind, trigger_id, script_id, reply_to, payload,
                       origin_principal, trigger_depth, root_execution_id, parent_id, max_attempts,
                       'replayed by ' || ? || ' after: ' || last_error,             -- admin
                       traceparent, tracestate,                                     -- the replay joins the row's trace
                       -- its lane and place (null for dead letters from before V20: a place of their own, next)
                       ordering_key, coalesce(lane_seq, nextval('outbox_lane_seq'))
                FROM revived
                RETURNING id
                """, p -> {
            which.bind(p);
            p.text(by);
        }, rs -> rs.getObject(1, UUID.class));
    }
}
