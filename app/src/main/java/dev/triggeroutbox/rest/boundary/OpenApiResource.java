package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.rest.control.Callers;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code /openapi.json}: the OpenAPI document of this API (written by hand in {@code openapi.json};
 * a unit test holds it to the resource methods). For every signed-in outbox caller, not open: the
 * contract keeps every path but health behind sign-in, and producers need it as much as admins.
 */
@Path("openapi.json")
@ApplicationScoped
@RolesAllowed({Callers.PRODUCER, Callers.ADMIN})
public class OpenApiResource {

    private volatile String document;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public String document() {
        String text = document;
        if (text == null) {
            try (InputStream in = OpenApiResource.class.getResourceAsStream("/openapi.json")) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            document = text;
        }
        return text;
    }
}
