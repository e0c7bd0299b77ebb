package dev.triggeroutbox.rest;

import static dev.triggeroutbox.support.ItUsers.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.it.Deployments;
import java.net.URL;
import java.util.UUID;
import dev.triggeroutbox.support.WildFlyOnly;
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
        try (Api api = new Api(base)) {
            Api.Reply r = api.post(ADMIN, "apps/" + app + "/triggers", """
                    {"sourceKind":"kv","target":{"type":"jms","destination":"java:/jms/queue/orders"}}""");
            assertEquals(422, r.status(), r.toString());
            assertTrue(r.isProblem(), r.toString());
            assertTrue(r.object().getString("type").endsWith(":jms-unavailable"), r.toString());
            assertTrue(r.object().getString("detail").contains("no JMS connection factory on this server"), r.toString());
            assertEquals(0, ItDatabase.everythingOf(app));
            // the rest of the API is there
            Api.Reply handler = api.post(ADMIN, "apps/" + app + "/triggers", """
                    {"sourceKind":"kv","target":{"type":"webhook","url":"http://127.0.0.1:9/x"}}""");
            assertEquals(201, handler.status(), handler.toString());
        }
    }
}
