package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.console.control.Lineage;
import dev.triggeroutbox.outbox.control.RowStatus;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.rest.control.ApiException;
import dev.triggeroutbox.rest.control.Callers;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.sql.SQLException;
import java.util.List;

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
    public JsonObject lineage(@PathParam("rootExecutionId") String rootText) throws SQLException {
        ExecutionId root = Callers.pathId(rootText, ExecutionId::parse, "execution");
        List<JsonObject> cascade = rows.cascade(root, MAX_ROWS + 1);
        if (cascade.isEmpty()) {
            throw ApiException.notFound("execution " + rootText);
        }
        boolean truncated = cascade.size() > MAX_ROWS;
        return Lineage.tree(root.toString(), truncated ? cascade.subList(0, MAX_ROWS) : cascade, truncated);
    }
}
