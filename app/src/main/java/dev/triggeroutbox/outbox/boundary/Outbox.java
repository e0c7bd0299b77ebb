package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.api.OutboxDelivery;
import dev.triggeroutbox.api.OutboxUnavailableException;
import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.control.CurrentTrace;
import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.outbox.control.OutboxWriter;
import dev.triggeroutbox.outbox.control.ReplySlots;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OrderingKey;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TraceContext;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.platform.StoreException;
import dev.triggeroutbox.platform.Tracing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The Java API of the outbox for code in this deployment: inject it and call it inside your own
 * transaction. Rows are written on your transaction, so they exist if and only if it commits; the
 * commit wakes the dispatcher. Without a transaction each call is still all or nothing: the calls that
 * write with one statement ({@code enqueue}, {@code publish}, {@code publishAll}, {@code invokeAsync})
 * let that statement commit by itself (no JTA transaction to begin and commit, the cheapest write there
 * is), {@link #enqueueAll} runs in a transaction of its own.
 *
 * <p>Every call is held to {@link OutboxLimits}, whoever makes it (REST, this Java API, the remote
 * EJB view, the pubsub and email sources): the payload must be JSON text {@code jsonb} can store,
 * within {@code outbox.max-payload-bytes} as stored, {@code deliverAt} within 10 years of now, the
 * depth within {@code outbox.max-trigger-depth}. A refusal is an {@link OutboxRefusedException}
 * saying which value and why, and nothing is written.
 *
 * <p>Every method throws unchecked exceptions only: a refusal is an {@link OutboxRefusedException} (its
 * {@link OutboxRefusedException#reason() reason} and problem {@link OutboxRefusedException#type() type} say why;
 * the few Java-only checks documented on a method are {@link IllegalArgumentException} or
 * {@link IllegalStateException}), and a failure of the database (unreachable, no connection to be had, an error
 * of its own) is an {@link OutboxUnavailableException} whose cause is the database's exception and whose message
 * carries no SQL. Either one marks your transaction for rollback, and nothing is written.
 *
 * <p>Rows carry the W3C trace context current on the calling thread ({@link CurrentTrace}: a REST call's
 * {@code traceparent}, or the delivery whose handler writes) to each of their deliveries; the calls that
 * take a parent delivery carry that delivery's. Where the server provides OpenTelemetry ({@link Tracing}), each
 * write is a span, a child of the caller's current span (or of that context), and the rows carry the span.
 */
@ApplicationScoped
@Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
public class Outbox {

    @Inject
    OutboxWriter writer;

    @Inject
    CommitWakeup wakeup;

    @Inject
    OutboxLimits limits;

    @Inject
    ReplySlots replySlots;

    @Inject
    Tracing tracing;

    /**
     * Enqueues one row. A row naming its own {@code replyTo} is refused ({@code CONFLICT}, {@code reply-taken}) when
     * another row has that reply id, waiting or answered: reply ids are one per row.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public OutboxId enqueue(NewOutboxRow row) {
        limits.check(row);
        OutboxId id = traced("enqueue", row.appId(), row.sourceKind(), CurrentTrace.get(),
                trace -> row.replyTo() == null
                        ? writer.insert(row, trace)
                        : replySlots.writing(row.replyTo(), () -> writer.insert(row, trace)),
                written -> 1);
        wakeup.written(row.sourceKind(), 1);
        return id;
    }

    /**
     * Fire-and-forget composition, for handlers: enqueues a row of kind {@code invoke} for the
     * {@code target} trigger of the same app, one level deeper in the same cascade (same root
     * execution). It gets one attempt unless {@code maxAttempts} asks for more. Refused with
     * {@link IllegalStateException} past {@code outbox.max-trigger-depth}: a cycle ends there.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public OutboxId invokeAsync(OutboxDelivery parent, TriggerId target, String args, Integer maxAttempts) {
        int depth = deeper(parent);
        try (CurrentTrace.Scope scope = CurrentTrace.open(traceOf(parent))) {
            return enqueue(NewOutboxRow.to(new AppId(parent.appId()), SourceKind.INVOKE, target, args)
                    .withLineage(rootOf(parent), depth)
                    .withParent(new OutboxId(parent.id()))
                    .withOrigin(parent.originPrincipal())
                    .withMaxAttempts(maxAttempts == null ? 1 : maxAttempts));
        }
    }

    /**
     * Publishes an event from inside a delivery, for handlers: like {@link #publish(AppId, SourceKind,
     * String, String, ExecutionId, int, OffsetDateTime)} for the delivery's app, one level deeper in
     * the same cascade, with the delivery as the rows' parent. Refused past {@code outbox.max-trigger-depth}.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<OutboxWriter.FannedOut> publish(OutboxDelivery parent, SourceKind kind, String payload) {
        int depth = deeper(parent);
        limits.check(payload, depth, null);
        AppId app = new AppId(parent.appId());
        List<OutboxWriter.FannedOut> rows = traced("publish", app, kind, traceOf(parent),
                trace -> writer.fanOut(app, kind,
                        payload, parent.originPrincipal(), rootOf(parent), depth, null, new OutboxId(parent.id()), null,
                        trace),
                List::size);
        wakeup.written(kind, rows.size());
        return rows;
    }

    private int deeper(OutboxDelivery parent) {
        int depth = parent.triggerDepth() + 1;
        if (depth > limits.maxTriggerDepth()) {
            throw new IllegalStateException("trigger depth " + depth + " exceeds outbox.max-trigger-depth "
                    + limits.maxTriggerDepth() + ": the cascade stops here");
        }
        return depth;
    }

    private static TraceContext traceOf(OutboxDelivery parent) {
        return TraceContext.parse(parent.traceparent(), parent.tracestate());
    }

    private static ExecutionId rootOf(OutboxDelivery parent) {
        return new ExecutionId(parent.rootExecutionId() == null ? parent.id() : parent.rootExecutionId());
    }

    /**
     * Publishes an event: one row per enabled trigger of {@code (app, kind)}. The rows share one root
     * execution id (the given one, or a new one).
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<OutboxWriter.FannedOut> publish(AppId app, SourceKind kind, String payload, String originPrincipal,
            ExecutionId root, int depth, OffsetDateTime deliverAt) {
        return publish(app, kind, payload, originPrincipal, root, depth, deliverAt, null);
    }

    /**
     * Publishes an event like {@link #publish(AppId, SourceKind, String, String, ExecutionId, int, OffsetDateTime)},
     * in the lane of {@code orderingKey} (null: none): each of its rows is delivered after every earlier row of
     * its trigger with that key, one at a time. Refused with {@link IllegalArgumentException} when the key is
     * empty or longer than 200 characters.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<OutboxWriter.FannedOut> publish(AppId app, SourceKind kind, String payload, String originPrincipal,
            ExecutionId root, int depth, OffsetDateTime deliverAt, String orderingKey) {
        limits.check(payload, depth, deliverAt);
        OrderingKey.check(orderingKey);
        List<OutboxWriter.FannedOut> rows = traced("publish", app, kind, CurrentTrace.get(), trace -> writer.fanOut(app,
                kind, payload, originPrincipal, root == null ? ExecutionId.random() : root, depth, deliverAt, null,
                orderingKey, trace), List::size);
        wakeup.written(kind, rows.size());
        return rows;
    }

    /**
     * Publishes many events in one statement: each fans out like {@link #publish(AppId, SourceKind, String,
     * String, ExecutionId, int, OffsetDateTime)}. In your transaction all of them or none are written.
     * Answers the rows in event order, each with its event's position in {@code events}. Refused with
     * {@link IllegalArgumentException} when empty or longer than {@code outbox.max-batch-events}.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<OutboxWriter.Written> publishAll(AppId app, List<NewEvent> events, String originPrincipal) {
        limits.checkBatchSize(events.size());
        events.forEach(e -> limits.check(e.payload(), e.triggerDepth(), e.deliverAt()));
        List<OutboxWriter.Written> rows = traced("publish", app, null, CurrentTrace.get(),
                trace -> writer.fanOutAll(app, events, originPrincipal, trace), List::size);
        Map<SourceKind, Integer> kinds = new EnumMap<>(SourceKind.class);
        for (OutboxWriter.Written row : rows) {
            kinds.merge(events.get(row.event()).kind(), 1, Integer::sum);
        }
        kinds.forEach(wakeup::written);
        return rows;
    }

    /**
     * Enqueues many rows in one statement; answers their ids in the order of {@code rows}. A row that
     * names a trigger of another app fails the call with {@link dev.triggeroutbox.outbox.control.UnknownTriggersException}
     * (naming every such row) and marks the transaction for rollback: none of the rows is written.
     * Refused with {@link IllegalArgumentException} when empty or longer than {@code outbox.max-batch-events}.
     */
    public List<OutboxId> enqueueAll(List<NewOutboxRow> rows) {
        limits.checkBatchSize(rows.size());
        rows.forEach(limits::check);
        List<OutboxId> replyTos = rows.stream().map(NewOutboxRow::replyTo).filter(java.util.Objects::nonNull).toList();
        List<OutboxId> ids = traced("enqueue", rows.get(0).appId(), null, CurrentTrace.get(), trace -> {
            replySlots.takeAll(replyTos);
            return writer.insertAll(rows, trace);
        }, List::size);
        Map<SourceKind, Integer> kinds = new EnumMap<>(SourceKind.class);
        rows.forEach(r -> kinds.merge(r.sourceKind(), 1, Integer::sum));
        kinds.forEach(wakeup::written);
        return ids;
    }

    /** A write of rows that carry {@code trace} (null: none). */
    private interface Write<T> {
        T rows(TraceContext trace);
    }

    /**
     * Runs {@code write} in a span of its own when there are spans: its rows then carry the span's context, a child
     * of the caller's current span or of {@code given}; without spans they carry {@code given}. A database failure
     * leaves as an {@link OutboxUnavailableException}.
     */
    private <T> T traced(String operation, AppId app, SourceKind kind, TraceContext given, Write<T> write,
            ToIntFunction<T> count) {
        try {
            return tracing.active() ? inSpan(operation, app, kind, given, write, count) : write.rows(given);
        } catch (StoreException e) {
            throw new OutboxUnavailableException(operation + " failed: the outbox could not write to its database",
                    e.sqlException());
        }
    }

    private <T> T inSpan(String operation, AppId app, SourceKind kind, TraceContext given, Write<T> write,
            ToIntFunction<T> count) {
        Tracing.Span span = tracing.write(operation, app.toString(), kind == null ? null : kind.wire(),
                given == null ? null : given.traceparent(), given == null ? null : given.tracestate());
        try {
            T written = write.rows(TraceContext.parse(span.traceparent(), span.tracestate()));
            span.rows(count.applyAsInt(written));
            span.end("written", null);
            return written;
        } catch (RuntimeException e) {
            span.end("refused", e.getClass().getSimpleName());
            throw e;
        }
    }
}
