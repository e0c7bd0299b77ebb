package dev.triggeroutbox.console.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.console.control.Lineage;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LineageResourceTest {

    private static RowState row(int id, Integer parent, int depth, String status) {
        return new RowState(new OutboxId(new UUID(0, id)), new AppId(new UUID(1, 1)), "http", status, 1, depth, false,
                null, null, null, null, null, null, "node-1", null, null,
                parent == null ? null : new OutboxId(new UUID(0, parent)));
    }

    @Test
    void eachNodeIsItsRowAsOperatorsSeeItWithItsParentAndChildren() {
        ExecutionId root = ExecutionId.random();
        JsonObject json = LineageResource
                .json(Lineage.tree(root, List.of(row(1, null, 0, "delivered"), row(2, 1, 1, "dead")), false));
        assertEquals(List.of("rootExecutionId", "rows", "truncated", "maxDepth", "byStatus", "tree"),
                List.copyOf(json.keySet()));
        assertEquals(root.toString(), json.getString("rootExecutionId"));
        JsonObject top = json.getJsonArray("tree").getJsonObject(0);
        assertEquals(List.of("id", "appId", "sourceKind", "status", "attemptCount", "triggerDepth", "cancelRequested",
                "triggerId", "rootExecutionId", "lastError", "createdAt", "nextAttemptAt", "finishedAt", "node",
                "traceparent", "orderingKey", "parentId", "children"), List.copyOf(top.keySet()));
        assertEquals(JsonValue.NULL, top.get("parentId"));
        assertEquals("node-1", top.getString("node"));
        JsonObject child = top.getJsonArray("children").getJsonObject(0);
        assertEquals(top.getString("id"), child.getString("parentId"));
        assertTrue(child.getJsonArray("children").isEmpty());
    }

    @Test
    void aVeryDeepChainDoesNotOverflowTheStack() {
        List<RowState> rows = new ArrayList<>();
        rows.add(row(0, null, 0, "delivered"));
        for (int i = 1; i < 10_000; i++) {
            rows.add(row(i, i - 1, i, "delivered"));
        }
        JsonObject tree = LineageResource.json(Lineage.tree(ExecutionId.random(), rows, true));
        assertEquals(true, tree.getBoolean("truncated"));
        assertEquals(1, tree.getJsonArray("tree").size());
    }
}
