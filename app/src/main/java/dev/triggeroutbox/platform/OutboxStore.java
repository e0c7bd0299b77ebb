package dev.triggeroutbox.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one place that knows where the outbox's datasource is: the WAR's own resource reference
 * {@code java:comp/env/jdbc/outbox} (web.xml), which each server's descriptor binds to that server's
 * resource (jboss-web.xml: {@code java:jboss/datasources/OutboxDS}; glassfish-web.xml:
 * {@code jboss/datasources/OutboxDS}), so one WAR runs on both. persistence.xml names the same reference.
 */
@ApplicationScoped
public class OutboxStore {

    @Inject
    @ConfigProperty(name = "outbox.datasource", defaultValue = "java:comp/env/jdbc/outbox")
    String jndiName;

    @Produces
    @ApplicationScoped
    DataSource dataSource() {
        try {
            return (DataSource) new InitialContext().lookup(jndiName);
        } catch (NamingException e) {
            throw new IllegalStateException("no datasource at " + jndiName
                    + " (configure the server with standalone-config/, or set outbox.datasource)", e);
        }
    }
}
