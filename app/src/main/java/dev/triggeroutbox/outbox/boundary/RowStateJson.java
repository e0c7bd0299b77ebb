package dev.triggeroutbox.outbox.boundary;

import dev.triggeroutbox.outbox.entity.RowState;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonObjectBuilder;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Where a row stands, as {@code GET /outbox/{id}} shows it to its producer and the console shows it to operators
 * ({@code GET /admin/rows/{id}}, each row of a lineage). Absent values are JSON null, so every status has the same
 * fields; times are in UTC.
 */
public final class RowStateJson {

    /** Who reads the row: a producer does not see the node that claimed it (a host name and process id is the operator's). */
    public enum View {
        PRODUCER, OPERATOR
    }

    private RowStateJson() {
    }

    /** A builder: the lineage adds {@code parentId} and the row's children after the row's fields. */
    public static JsonObjectBuilder of(RowState r, View view) {
        JsonObjectBuilder json = Jsons.object()
                .add("id", r.id().toString())
                .add("appId", r.appId().toString())
                .add("sourceKind", r.sourceKind())
                .add("status", r.status())
                .add("attemptCount", r.attemptCount())
                .add("triggerDepth", r.triggerDepth())
                .add("cancelRequested", r.cancelRequested());
        text(json, "triggerId", r.triggerId() == null ? null : r.triggerId().toString());
        text(json, "rootExecutionId", r.rootExecutionId() == null ? null : r.rootExecutionId().toString());
        text(json, "lastError", r.lastError());
        text(json, "createdAt", time(r.createdAt()));
        text(json, "nextAttemptAt", time(r.nextAttemptAt()));
        text(json, "finishedAt", time(r.finishedAt()));
        if (view == View.OPERATOR) {
            text(json, "node", r.node());
        }
        text(json, "traceparent", r.traceparent());
        return text(json, "orderingKey", r.orderingKey());
    }

    private static JsonObjectBuilder text(JsonObjectBuilder json, String name, String value) {
        return value == null ? json.addNull(name) : json.add(name, value);
    }

    private static String time(OffsetDateTime t) {
        return t == null
                ? null
                : DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }
}
