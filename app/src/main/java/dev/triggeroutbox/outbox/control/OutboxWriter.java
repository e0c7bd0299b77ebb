package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.StoreException;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.IntFunction;
import javax.sql.DataSource;

/**
 * Writes outbox rows on the caller's connection, so inside the caller's JTA transaction: a row
 * exists if and only if that transaction commits. One statement per call, also for fan-out and for batches (their
 * columns travel as arrays and {@code unnest} turns them back into rows: one round trip and one plan per batch,
 * whatever its size). Besides the dead-letter events the dispatcher's finish statement writes (a part of that one
 * statement, in {@code Claims}), every {@code INSERT INTO outbox} is here: producers' rows and batches, fan-out and
 * batches of events, cron fires and replayed dead letters.
 */
@ApplicationScoped
public class OutboxWriter {

    /** A row written by fan-out and the trigger it is for. */
    public record FannedOut(OutboxId id, TriggerId triggerId) {
    }

    /** A row written for a batch's {@code event}-th event (or row), from 0; {@code triggerId} may be null for a row. */
    public record Written(int event, OutboxId id, TriggerId triggerId) {
    }

    @Inject
    DataSource dataSource;

    @Inject
    Jdbc jdbc;

    /**
     * Writes {@code row}, carrying {@code trace} (null: none) to its deliveries. On the plain driver, as
     * {@link #fanOut}: the per-call path of {@code Outbox.enqueue} that the benchmark measures, no binder to allocate.
     */
    public OutboxId insert(NewOutboxRow row, TraceContext trace) {
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
        } catch (SQLException e) {
            throw new StoreException(e);
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
            TraceContext trace) {
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
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    /**
     * Fans out every event to the enabled triggers of {@code (app, its kind)}; an event without a
     * matching trigger writes nothing. Answers the rows in event order, then trigger id. Every row carries
     * {@code trace} (null: none) to its deliveries.
     */
    public List<Written> fanOutAll(AppId app, List<NewEvent> events, String originPrincipal, TraceContext trace) {
        // `fanned` is read twice, so PostgreSQL materializes it: each gen_random_uuid() is drawn once and
        // the ids answered are the ids inserted
        String sql = """
                WITH fanned AS MATERIALIZED (
                    SELECT gen_random_uuid() AS id, e.n, t.id AS trigger_id, t.app_id, t.source_kind, t.script_id,
                           e.payload, e.depth, e.root, e.deliver_at, e.ordering_key
                    FROM unnest(?::text[],                               -- 1: kinds
                                ?::jsonb[],                              -- 2: payloads
                                ?::int[],                                -- 3: trigger depths
                                ?::uuid[],                               -- 4: root execution ids
                                ?::timestamptz[],                        -- 5: deliver at (NULL: now)
                                ?::text[])                               -- 6: ordering keys (NULL: none)
                         WITH ORDINALITY AS e(kind, payload, depth, root, deliver_at, ordering_key, n)
                    JOIN triggers t ON t.app_id = ? AND t.source_kind = e.kind AND t.enabled   -- 7: app
                ), written AS (
                    -- in event order, so that the lane_seq each row draws keeps a lane's events in batch order
                    INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, payload, origin_principal,
                                        trigger_depth, root_execution_id, next_attempt_at, traceparent, tracestate,
                                        ordering_key)
                    SELECT id, app_id, source_kind, trigger_id, script_id, payload,
                           ?,                                            -- 8: origin principal
                           depth, root, greatest(deliver_at, now()),     -- never before now
                           ?, ?,                                         -- 9, 10: trace context
                           ordering_key
                    FROM fanned ORDER BY n
                )
                SELECT n, id, trigger_id FROM fanned ORDER BY n, trigger_id
                """;
        return jdbc.list(sql, p -> p
                .array("text", column(events, e -> e.kind().wire(), String[]::new))
                .array("text", column(events, NewEvent::payload, String[]::new))
                .array("integer", column(events, NewEvent::triggerDepth, Integer[]::new))
                // an event without a root starts its own cascade, shared by all of its rows
                .array("uuid",
                        column(events, e -> (e.root() == null ? ExecutionId.random() : e.root()).value(), UUID[]::new))
                .array("text",
                        column(events, e -> e.deliverAt() == null ? null : e.deliverAt().toString(), String[]::new))
                .array("text", column(events, NewEvent::orderingKey, String[]::new))
                .uuid(app.value())
                .text(originPrincipal)
                .text(trace == null ? null : trace.traceparent())
                .text(trace == null ? null : trace.tracestate()),
                rs -> new Written(rs.getInt(1) - 1, new OutboxId(rs.getObject(2, UUID.class)),
                        new TriggerId(rs.getObject(3, UUID.class))));
    }

    /**
     * Writes one row per entry, in one statement. A row that names a trigger must name one of its
     * app's; otherwise {@link UnknownTriggersException} names every such row, and the caller's
     * transaction must roll back (the other rows were written). Every row carries {@code trace} (null: none)
     * to its deliveries.
     */
    public List<OutboxId> insertAll(List<NewOutboxRow> rows, TraceContext trace) {
        String sql = """
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, script_id, reply_to, payload, origin_principal,
                                    trigger_depth, root_execution_id, max_attempts, next_attempt_at, parent_id,
                                    traceparent, tracestate, ordering_key)
                SELECT r.id, r.app_id, r.kind, r.trigger_id, r.script_id, r.reply_to, r.payload, r.origin,
                       r.depth, r.root, r.max_attempts, greatest(r.deliver_at, now()), r.parent,
                       tc.traceparent, tc.tracestate, r.ordering_key
                FROM unnest(?::uuid[],                                   -- 1: ids
                            ?::uuid[],                                   -- 2: apps
                            ?::text[],                                   -- 3: kinds
                            ?::uuid[],                                   -- 4: triggers (may be NULL)
                            ?::uuid[],                                   -- 5: scripts
                            ?::uuid[],                                   -- 6: reply to
                            ?::jsonb[],                                  -- 7: payloads
                            ?::text[],                                   -- 8: origin principals
                            ?::int[],                                    -- 9: trigger depths
                            ?::uuid[],                                   -- 10: root execution ids
                            ?::int[],                                    -- 11: max attempts
                            ?::timestamptz[],                            -- 12: deliver at (NULL: now)
                            ?::uuid[],                                   -- 13: parents
                            ?::text[])                                   -- 14: ordering keys (NULL: none)
                     WITH ORDINALITY AS r(id, app_id, kind, trigger_id, script_id, reply_to, payload, origin, depth,
                          root, max_attempts, deliver_at, parent, ordering_key, n)
                CROSS JOIN (SELECT ?::text, ?::text) AS tc(traceparent, tracestate)  -- 15, 16: trace context
                WHERE r.trigger_id IS NULL                               -- a trigger, if named, must be the app's
                   OR EXISTS (SELECT 1 FROM triggers t WHERE t.id = r.trigger_id AND t.app_id = r.app_id)
                ORDER BY r.n                                             -- lane_seq in row order
                RETURNING id
                """;
        UUID[] ids = new UUID[rows.size()];
        Arrays.setAll(ids, i -> UUID.randomUUID());
        // a row without a given root starts its own cascade
        UUID[] roots = new UUID[ids.length];
        Arrays.setAll(roots,
                i -> rows.get(i).rootExecutionId() == null ? ids[i] : rows.get(i).rootExecutionId().value());
        Set<UUID> written = new HashSet<>(jdbc.list(sql, p -> p
                .array("uuid", ids)
                .array("uuid", column(rows, r -> r.appId().value(), UUID[]::new))
                .array("text", column(rows, r -> r.sourceKind().wire(), String[]::new))
                .array("uuid", column(rows, r -> r.triggerId() == null ? null : r.triggerId().value(), UUID[]::new))
                .array("uuid", column(rows, r -> r.scriptId() == null ? null : r.scriptId().value(), UUID[]::new))
                .array("uuid", column(rows, r -> r.replyTo() == null ? null : r.replyTo().value(), UUID[]::new))
                .array("text", column(rows, NewOutboxRow::payload, String[]::new))
                .array("text", column(rows, NewOutboxRow::originPrincipal, String[]::new))
                .array("integer", column(rows, NewOutboxRow::triggerDepth, Integer[]::new))
                .array("uuid", roots)
                .array("integer", column(rows, NewOutboxRow::maxAttempts, Integer[]::new))
                .array("text",
                        column(rows, r -> r.deliverAt() == null ? null : r.deliverAt().toString(), String[]::new))
                .array("uuid", column(rows, r -> r.parentId() == null ? null : r.parentId().value(), UUID[]::new))
                .array("text", column(rows, NewOutboxRow::orderingKey, String[]::new))
                .text(trace == null ? null : trace.traceparent())
                .text(trace == null ? null : trace.tracestate()),
                rs -> rs.getObject(1, UUID.class)));
        if (written.size() < ids.length) {
            List<Integer> refused = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                if (!written.contains(ids[i])) {
                    refused.add(i);
                }
            }
            throw new UnknownTriggersException(refused);
        }
        return Arrays.stream(ids).map(OutboxId::new).toList();
    }

    /** One column of the batch, for an SQL array. */
    private static <T, C> C[] column(List<T> items, Function<T, C> column, IntFunction<C[]> newArray) {
        C[] values = newArray.apply(items.size());
        for (int i = 0; i < values.length; i++) {
            values[i] = column.apply(items.get(i));
        }
        return values;
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
