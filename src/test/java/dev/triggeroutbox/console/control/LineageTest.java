package dev.triggeroutbox.console.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineageTest {

    private static JsonObject row(String id, String parent, int depth, String status) {
        JsonObjectBuilder b = Jsons.object().add("id", id).add("triggerDepth", depth).add("status", status);
        if (parent == null) {
            b.addNull("parentId");
        } else {
            b.add("parentId", parent);
        }
        return b.build();
    }

    @Test
    void rowsHangUnderTheirParentsAndOrphansBecomeRoots() {
        JsonObject tree = Lineage.tree("r", List.of(
                row("a", null, 0, "delivered"),
                row("b", "a", 1, "delivered"),
                row("c", "a", 1, "dead"),
                row("d", "b", 2, "pending"),
                row("e", "pruned-long-ago", 3, "scheduled")), false);
        assertEquals(5, tree.getInt("rows"));
        assertEquals(3, tree.getInt("maxDepth"));
        assertEquals(2, tree.getJsonObject("byStatus").getInt("delivered"));
        var tops = tree.getJsonArray("tree");
        assertEquals(2, tops.size());
        JsonObject a = tops.getJsonObject(0);
        assertEquals("a", a.getString("id"));
        assertEquals(List.of("b", "c"), a.getJsonArray("children").getValuesAs(JsonObject.class).stream().map(o -> o.getString("id")).toList());
        assertEquals("d", a.getJsonArray("children").getJsonObject(0).getJsonArray("children").getJsonObject(0).getString("id"));
        assertEquals("e", tops.getJsonObject(1).getString("id"));
    }

    @Test
    void aVeryDeepChainDoesNotOverflowTheStack() {
        List<JsonObject> rows = new ArrayList<>();
        rows.add(row("0", null, 0, "delivered"));
        for (int i = 1; i < 10_000; i++) {
            rows.add(row(String.valueOf(i), String.valueOf(i - 1), i, "delivered"));
        }
        JsonObject tree = Lineage.tree("r", rows, true);
        assertEquals(true, tree.getBoolean("truncated"));
        assertEquals(1, tree.getJsonArray("tree").size());
    }
}
