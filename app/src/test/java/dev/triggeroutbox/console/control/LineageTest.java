package dev.triggeroutbox.console.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triggeroutbox.console.entity.Cascade;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LineageTest {

    /** A row named by one letter (its id ends in the letter's code), under {@code parent} (null: none). */
    static RowState row(char id, Character parent, int depth, String status) {
        return new RowState(id(id), AppId.random(), "http", status, 1, depth, false, null, null, null, null, null,
                null, null, null, null, parent == null ? null : id(parent));
    }

    static OutboxId id(char c) {
        return new OutboxId(new UUID(0, c));
    }

    @Test
    void rowsHangUnderTheirParentsAndOrphansBecomeRoots() {
        RowState a = row('a', null, 0, "delivered");
        RowState b = row('b', 'a', 1, "delivered");
        RowState c = row('c', 'a', 1, "dead");
        RowState d = row('d', 'b', 2, "pending");
        RowState e = row('e', 'z', 3, "scheduled"); // its parent pruned long ago
        Cascade tree = Lineage.tree(ExecutionId.random(), List.of(a, b, c, d, e), false);
        assertEquals(5, tree.rows());
        assertEquals(3, tree.maxDepth());
        assertEquals(Map.of("delivered", 2, "dead", 1, "pending", 1, "scheduled", 1), tree.byStatus());
        assertEquals(List.of("delivered", "dead", "pending", "scheduled"), List.copyOf(tree.byStatus().keySet()),
                "in order of appearance");
        assertEquals(List.of(a, e), tree.roots());
        assertEquals(List.of(b, c), tree.children(a));
        assertEquals(List.of(d), tree.children(b));
        assertEquals(List.of(), tree.children(e));
    }

    @Test
    void aRowThatNamesItselfAsParentIsARoot() {
        RowState a = row('a', 'a', 0, "delivered");
        assertEquals(List.of(a), Lineage.tree(ExecutionId.random(), List.of(a), false).roots());
    }
}
