package dev.triggeroutbox.rest.boundary;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Map;

/** The REST API: {@code /outbox/api/v1}. Resources live in their features' boundary packages. */
@ApplicationPath("/api/v1")
public class OutboxApi extends Application {

    /**
     * Jersey (Payara) makes a relative {@code Location} absolute from the request's {@code Host} header, which
     * the client chose; the API answers paths, as RESTEasy (WildFly) leaves them.
     */
    @Override
    public Map<String, Object> getProperties() {
        return Map.of("jersey.config.server.headers.location.relative.resolution.disabled", true);
    }
}
