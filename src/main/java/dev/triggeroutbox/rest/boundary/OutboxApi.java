package dev.triggeroutbox.rest.boundary;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The REST API: {@code /outbox/api/v1}. Resources live in their features' boundary packages. */
@ApplicationPath("/api/v1")
public class OutboxApi extends Application {
}
