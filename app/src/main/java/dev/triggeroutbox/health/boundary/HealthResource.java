package dev.triggeroutbox.health.boundary;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.health.control.HealthChecks;
import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * {@code /health}, {@code /health/ready}, {@code /health/live}: the only paths open without signing in
 * (load balancers and orchestrators probe them). 200 when every check is UP, else 503; the body
 * says which check failed and nothing more.
 */
@Path("health")
@RequestScoped
@PermitAll
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {

    @Inject
    HealthChecks checks;

    @GET
    public Response all() {
        return answer(List.of(checks.database(), checks.dispatcher()));
    }

    @GET
    @Path("ready")
    public Response ready() {
        return answer(List.of(checks.database()));
    }

    @GET
    @Path("live")
    public Response live() {
        return answer(List.of(checks.dispatcher()));
    }

    private static Response answer(List<HealthChecks.Check> results) {
        boolean up = results.stream().allMatch(HealthChecks.Check::up);
        JsonArrayBuilder list = Jsons.array();
        results.forEach(c -> list.add(c.json()));
        return Response.status(up ? 200 : 503)
                .entity(Jsons.object().add("status", up ? "UP" : "DOWN").add("checks", list).build())
                .header("Cache-Control", "no-store")
                .build();
    }
}
