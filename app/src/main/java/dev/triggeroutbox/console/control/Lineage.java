package dev.triggeroutbox.console.control;

import dev.triggeroutbox.console.entity.Cascade;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rows of one cascade as a tree: each row under the row whose delivery wrote it. A row whose
 * parent is not among them (an event from outside, or a parent pruned from the history) is a root
 * of the tree.
 */
public final class Lineage {

    private Lineage() {
    }

    /**
     * @param rows      the cascade's rows in creation order
     * @param truncated whether more rows exist than were read
     */
    public static Cascade tree(ExecutionId root, List<RowState> rows, boolean truncated) {
        Set<OutboxId> ids = new HashSet<>();
        rows.forEach(r -> ids.add(r.id()));
        Map<OutboxId, List<RowState>> children = new HashMap<>();
        List<RowState> tops = new ArrayList<>();
        int maxDepth = 0;
        Map<String, Integer> byStatus = new LinkedHashMap<>();
        for (RowState r : rows) {
            OutboxId parent = r.parentId();
            if (parent != null && ids.contains(parent) && !parent.equals(r.id())) {
                children.computeIfAbsent(parent, k -> new ArrayList<>()).add(r);
            } else {
                tops.add(r);
            }
            maxDepth = Math.max(maxDepth, r.triggerDepth());
            byStatus.merge(r.status(), 1, Integer::sum);
        }
        return new Cascade(root, rows.size(), truncated, maxDepth, byStatus, tops, children);
    }
}
