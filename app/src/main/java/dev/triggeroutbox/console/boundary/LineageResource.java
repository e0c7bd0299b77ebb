package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.console.control.Lineage;
import dev.triggeroutbox.console.entity.Cascade;
import dev.triggeroutbox.outbox.boundary.RowStateJson;
import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.RowState;
import dev.triggeroutbox.rest.control.Callers;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /admin/lineage/{rootExecutionId}}: the cascade that one execution started, as a tree of
 * rows (where each stands now: pending, scheduled, in flight, delivered, dead), with its depth.
 */
@Path("admin/lineage")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class LineageResource {

    /** Rows shown per cascade; a bigger one is cut, and says so. */
    static final int MAX_ROWS = 10_000;

    @Inject
    RowStatus rows;

    @GET
    @Path("{rootExecutionId}")
    public JsonObject lineage(@PathParam("rootExecutionId") String rootText) {
        ExecutionId root = Callers.pathId(rootText, ExecutionId::parse, "execution");
        List<RowState> cascade = rows.cascade(root, MAX_ROWS + 1);
        if (cascade.isEmpty()) {
            throw OutboxRefusedException.notFound("execution " + rootText);
        }
        boolean truncated = cascade.size() > MAX_ROWS;
        return json(Lineage.tree(root, truncated ? cascade.subList(0, MAX_ROWS) : cascade, truncated));
    }

    static JsonObject json(Cascade c) {
        JsonArrayBuilder tree = Jsons.array();
        c.roots().forEach(top -> tree.add(node(top, c)));
        JsonObjectBuilder counts = Jsons.object();
        c.byStatus().forEach(counts::add);
        return Jsons.object()
                .add("rootExecutionId", c.root().toString())
                .add("rows", c.rows())
                .add("truncated", c.truncated())
                .add("maxDepth", c.maxDepth())
                .add("byStatus", counts)
                .add("tree", tree)
                .build();
    }

    /** A row and, below it, the rows it wrote; iterative so a deep cascade cannot overflow the stack. */
    private static JsonObject node(RowState top, Cascade c) {
        // post-order: build children before their parent
        List<RowState> order = new ArrayList<>();
        List<RowState> stack = new ArrayList<>(List.of(top));
        while (!stack.isEmpty()) {
            RowState r = stack.remove(stack.size() - 1);
            order.add(r);
            stack.addAll(c.children(r));
        }
        Map<OutboxId, JsonObject> built = new HashMap<>();
        for (int i = order.size() - 1; i >= 0; i--) {
            RowState r = order.get(i);
            JsonArrayBuilder kids = Jsons.array();
            c.children(r).forEach(k -> kids.add(built.remove(k.id())));
            JsonObjectBuilder n = RowStateJson.of(r, RowStateJson.View.OPERATOR);
            n = r.parentId() == null ? n.addNull("parentId") : n.add("parentId", r.parentId().toString());
            built.put(r.id(), n.add("children", kids).build());
        }
        return built.get(top.id());
    }
}
