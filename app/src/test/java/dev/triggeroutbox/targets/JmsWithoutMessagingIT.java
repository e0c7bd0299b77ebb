package dev.triggeroutbox.targets;

import static dev.triggeroutbox.testkit.ItClients.assertRefused;
import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.client.ProblemException;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import dev.triggeroutbox.testkit.WildFlyOnly;
import java.net.URI;
import java.net.URL;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * On WildFly's default standalone.xml (no messaging subsystem) the WAR deploys and works, and a
 * {@code jms} trigger is refused at registration, saying why. (The broker side is messaging/MessagingIT.)
 */
@WildFlyOnly("it checks WildFly's standalone.xml, which has no messaging subsystem")
@ExtendWith(ArquillianExtension.class)
class JmsWithoutMessagingIT {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outbox();
    }

    @ArquillianResource
    URL base;

    @Test
    void aJmsTriggerIsRefusedOnAServerWithoutMessaging() {
        UUID app = UUID.randomUUID();
        try (OutboxClient client = ItClients.client(base, ADMIN)) {
            ProblemException r = assertRefused(422, "jms-unavailable",
                    () -> client.createTrigger(app, TriggerDefinition.jms("kv", "java:/jms/queue/orders"),
                            Call.plain()));
            assertTrue(r.detail().contains("no JMS connection factory on this server"), r.getMessage());
            assertEquals(0, ItDatabase.everythingOf(app));
            // the rest of the API is there
            assertNotNull(client.createTrigger(app, TriggerDefinition.webhook("kv", URI.create("http://127.0.0.1:9/x")),
                    Call.plain()).id());
        }
    }
}
