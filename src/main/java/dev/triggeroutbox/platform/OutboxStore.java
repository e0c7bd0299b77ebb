package dev.triggeroutbox.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one place that knows where the server keeps the outbox's datasource. The JNDI name is
 * server-specific (WildFly: {@code java:jboss/datasources/OutboxDS}, from standalone-config/), so it
 * is configuration, not code. persistence.xml names it too, as JPA requires.
 */
@ApplicationScoped
public class OutboxStore {

    @Inject
    @ConfigProperty(name = "outbox.datasource", defaultValue = "java:jboss/datasources/OutboxDS")
    String jndiName;

    @Produces
    @ApplicationScoped
    DataSource dataSource() {
        try {
            return (DataSource) new InitialContext().lookup(jndiName);
        } catch (NamingException e) {
            throw new IllegalStateException("no datasource at " + jndiName
                    + " (run standalone-config/apply.sh on the server, or set outbox.datasource)", e);
        }
    }
}
