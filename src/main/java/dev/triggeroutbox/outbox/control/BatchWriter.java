package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.IntFunction;
import javax.sql.DataSource;

/**
 * Writes a whole batch of events or rows in one statement on the caller's connection, so inside the
 * caller's transaction: the batch's columns travel as arrays and {@code unnest} turns them back into
 * rows. One round trip and one plan per batch, whatever its size; no statement per event.
 */
@ApplicationScoped
public class BatchWriter {

    /** A row written for the batch's {@code event}-th event (or row), from 0; {@code triggerId} may be null for a row. */
    public record Written(int event, OutboxId id, TriggerId triggerId) {
    }

    @Inject
    DataSource dataSource;

    /**
     * Fans out every event to the enabled triggers of {@code (app, its kind)}; an event without a
     * matching trigger writes nothing. Answers the rows in event order, then trigger id. Every row carries
     * {@code trace} (null: none) to its deliveries.
     */
    public List<Written> fanOut(AppId app, List<NewEvent> events, String originPrincipal, TraceContext trace)
            throws SQLException {
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
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setArray(1, array(con, "text", events, e -> e.kind().wire(), String[]::new));
            ps.setArray(2, array(con, "text", events, NewEvent::payload, String[]::new));
            ps.setArray(3, array(con, "integer", events, NewEvent::triggerDepth, Integer[]::new));
            // an event without a root starts its own cascade, shared by all of its rows
            ps.setArray(4, array(con, "uuid", events, e -> (e.root() == null ? ExecutionId.random() : e.root()).value(), UUID[]::new));
            ps.setArray(5, array(con, "text", events, e -> e.deliverAt() == null ? null : e.deliverAt().toString(), String[]::new));
            ps.setArray(6, array(con, "text", events, NewEvent::orderingKey, String[]::new));
            ps.setObject(7, app.value());
            ps.setString(8, originPrincipal);
            ps.setString(9, trace == null ? null : trace.traceparent());
            ps.setString(10, trace == null ? null : trace.tracestate());
            List<Written> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Written(rs.getInt(1) - 1, new OutboxId(rs.getObject(2, UUID.class)),
                            new TriggerId(rs.getObject(3, UUID.class))));
                }
            }
            return rows;
        }
    }

    /**
     * Writes one row per entry, in one statement. A row that names a trigger must name one of its
     * app's; otherwise {@link UnknownTriggersException} names every such row, and the caller's
     * transaction must roll back (the other rows were written). Every row carries {@code trace} (null: none)
     * to its deliveries.
     */
    public List<OutboxId> insert(List<NewOutboxRow> rows, TraceContext trace) throws SQLException {
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
        List<UUID> ids = rows.stream().map(r -> UUID.randomUUID()).toList();
        try (Connection con = dataSource.getConnection(); PreparedStatement ps = con.prepareStatement(sql)) {
            ps.setArray(1, con.createArrayOf("uuid", ids.toArray(UUID[]::new)));
            ps.setArray(2, array(con, "uuid", rows, r -> r.appId().value(), UUID[]::new));
            ps.setArray(3, array(con, "text", rows, r -> r.sourceKind().wire(), String[]::new));
            ps.setArray(4, array(con, "uuid", rows, r -> r.triggerId() == null ? null : r.triggerId().value(), UUID[]::new));
            ps.setArray(5, array(con, "uuid", rows, r -> r.scriptId() == null ? null : r.scriptId().value(), UUID[]::new));
            ps.setArray(6, array(con, "uuid", rows, r -> r.replyTo() == null ? null : r.replyTo().value(), UUID[]::new));
            ps.setArray(7, array(con, "text", rows, NewOutboxRow::payload, String[]::new));
            ps.setArray(8, array(con, "text", rows, NewOutboxRow::originPrincipal, String[]::new));
            ps.setArray(9, array(con, "integer", rows, NewOutboxRow::triggerDepth, Integer[]::new));
            // a row without a given root starts its own cascade
            List<UUID> roots = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                roots.add(rows.get(i).rootExecutionId() == null ? ids.get(i) : rows.get(i).rootExecutionId().value());
            }
            ps.setArray(10, con.createArrayOf("uuid", roots.toArray(UUID[]::new)));
            ps.setArray(11, array(con, "integer", rows, NewOutboxRow::maxAttempts, Integer[]::new));
            ps.setArray(12, array(con, "text", rows, r -> r.deliverAt() == null ? null : r.deliverAt().toString(), String[]::new));
            ps.setArray(13, array(con, "uuid", rows, r -> r.parentId() == null ? null : r.parentId().value(), UUID[]::new));
            ps.setArray(14, array(con, "text", rows, NewOutboxRow::orderingKey, String[]::new));
            ps.setString(15, trace == null ? null : trace.traceparent());
            ps.setString(16, trace == null ? null : trace.tracestate());
            Set<UUID> written = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    written.add(rs.getObject(1, UUID.class));
                }
            }
            if (written.size() < ids.size()) {
                List<Integer> refused = new ArrayList<>();
                for (int i = 0; i < ids.size(); i++) {
                    if (!written.contains(ids.get(i))) {
                        refused.add(i);
                    }
                }
                throw new UnknownTriggersException(refused);
            }
        }
        return ids.stream().map(OutboxId::new).toList();
    }

    /** One column of the batch as a typed SQL array. */
    private static <T, C> Array array(Connection con, String type, List<T> items, Function<T, C> column,
            IntFunction<C[]> newArray) throws SQLException {
        C[] values = newArray.apply(items.size());
        for (int i = 0; i < values.length; i++) {
            values[i] = column.apply(items.get(i));
        }
        return con.createArrayOf(type, values);
    }
}
