package dev.triggeroutbox.console.entity;

import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import java.util.List;
import java.util.Map;

/**
 * The rows of one cascade as a tree: its {@code roots} in creation order, and below each row the rows its delivery
 * wrote ({@link #children}), in creation order too.
 *
 * @param rows      how many rows the tree holds
 * @param truncated whether more rows exist than were read
 * @param byStatus  rows per status, in the order each status first appears
 */
public record Cascade(ExecutionId root, int rows, boolean truncated, int maxDepth, Map<String, Integer> byStatus,
        List<RowState> roots, Map<OutboxId, List<RowState>> below) {

    public List<RowState> children(RowState row) {
        return below.getOrDefault(row.id(), List.of());
    }
}
