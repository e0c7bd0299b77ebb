package dev.triggeroutbox.console.control;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of one cascade as a tree: each row under the row whose delivery wrote it. A row whose
 * parent is not among them (an event from outside, or a parent pruned from the history) is a root
 * of the tree.
 */
public final class Lineage {

    private Lineage() {
    }

    /**
     * @param rows      the cascade's rows in creation order, each with {@code id} and {@code parentId}
     * @param truncated whether more rows exist than were read
     */
    public static JsonObject tree(String rootExecutionId, List<JsonObject> rows, boolean truncated) {
        Map<String, JsonObject> byId = new LinkedHashMap<>();
        Map<String, List<String>> children = new HashMap<>();
        List<String> tops = new ArrayList<>();
        rows.forEach(r -> byId.put(r.getString("id"), r));
        int maxDepth = 0;
        Map<String, Integer> byStatus = new LinkedHashMap<>();
        for (JsonObject r : rows) {
            String parent = r.get("parentId") instanceof JsonString p ? p.getString() : null;
            if (parent != null && byId.containsKey(parent) && !parent.equals(r.getString("id"))) {
                children.computeIfAbsent(parent, k -> new ArrayList<>()).add(r.getString("id"));
            } else {
                tops.add(r.getString("id"));
            }
            maxDepth = Math.max(maxDepth, r.getInt("triggerDepth"));
            byStatus.merge(r.getString("status"), 1, Integer::sum);
        }
        JsonArrayBuilder tree = Jsons.array();
        tops.forEach(id -> tree.add(node(id, byId, children)));
        JsonObjectBuilder counts = Jsons.object();
        byStatus.forEach(counts::add);
        return Jsons.object()
                .add("rootExecutionId", rootExecutionId)
                .add("rows", rows.size())
                .add("truncated", truncated)
                .add("maxDepth", maxDepth)
                .add("byStatus", counts)
                .add("tree", tree)
                .build();
    }

    /** A row and, below it, the rows it wrote; iterative so a deep cascade cannot overflow the stack. */
    private static JsonObject node(String top, Map<String, JsonObject> byId, Map<String, List<String>> children) {
        // post-order: build children before their parent
        List<String> order = new ArrayList<>();
        List<String> stack = new ArrayList<>(List.of(top));
        while (!stack.isEmpty()) {
            String id = stack.remove(stack.size() - 1);
            order.add(id);
            stack.addAll(children.getOrDefault(id, List.of()));
        }
        Map<String, JsonObject> built = new HashMap<>();
        for (int i = order.size() - 1; i >= 0; i--) {
            String id = order.get(i);
            JsonArrayBuilder kids = Jsons.array();
            children.getOrDefault(id, List.of()).forEach(k -> kids.add(built.remove(k)));
            JsonObjectBuilder n = Jsons.object();
            byId.get(id).forEach((k, v) -> n.add(k, v == null ? JsonValue.NULL : v));
            built.put(id, n.add("children", kids).build());
        }
        return built.get(top);
    }
}
