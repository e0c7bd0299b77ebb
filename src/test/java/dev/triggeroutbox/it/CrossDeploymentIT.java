package dev.triggeroutbox.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.api.OutboxMessage;
import dev.triggeroutbox.api.OutboxProducer;
import dev.triggeroutbox.support.WildFlyOnly;
import jakarta.ejb.EJBException;
import jakarta.inject.Inject;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Atomic enqueue from another deployment: a shop application writes its order and enqueues through
 * {@link OutboxProducer} in one JTA transaction. Rollback leaves neither; commit leaves both.
 */
@WildFlyOnly("a remote EJB view for other deployments; Payara Micro has no remote EJB (no ORB)")
@ExtendWith(ArquillianExtension.class)
class CrossDeploymentIT {

    @Deployment(name = "outbox", order = 1, testable = false)
    static WebArchive outbox() {
        return Deployments.outbox();
    }

    /** The other application: only the public API package of the outbox, nothing else of it. */
    @Deployment(name = "shop", order = 2)
    static WebArchive shop() {
        return ShrinkWrap.create(WebArchive.class, "shop.war")
                .addClasses(ShopService.class, Sql.class, OutboxProducer.class, OutboxMessage.class)
                .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml")
                // its business data lives in the outbox's datasource, under the name Sql looks up
                .setWebXML(new StringAsset("""
                        <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                          <resource-ref>
                            <res-ref-name>jdbc/outbox</res-ref-name>
                            <res-type>javax.sql.DataSource</res-type>
                            <lookup-name>java:jboss/datasources/OutboxDS</lookup-name>
                          </resource-ref>
                        </web-app>"""));
    }

    @Inject
    ShopService shop;

    private final UUID app = UUID.randomUUID();
    private UUID trigger;

    @BeforeEach
    void tables() {
        Sql.update("CREATE TABLE IF NOT EXISTS shop_orders (id uuid PRIMARY KEY, app_id uuid NOT NULL)");
        trigger = UUID.randomUUID();
        Sql.update("INSERT INTO triggers (id, app_id, source_kind, target_type, target) VALUES (?, ?, 'docs', 'handler', 'recorder')",
                trigger, app);
    }

    @Test
    @OperateOnDeployment("shop")
    void rollbackLeavesNeitherTheOrderNorTheRow() {
        UUID order = UUID.randomUUID();
        EJBException e = assertThrows(EJBException.class, () -> shop.placeOrder(order, app, trigger, true));
        assertEquals("payment declined", e.getCause().getMessage(), "rolled back for the business reason");
        assertEquals(0, Sql.count("SELECT count(*) FROM shop_orders WHERE id = ?", order));
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app));
    }

    @Test
    @OperateOnDeployment("shop")
    void commitLeavesBoth() {
        UUID order = UUID.randomUUID();
        UUID row = shop.placeOrder(order, app, trigger, false);
        assertEquals(1, Sql.count("SELECT count(*) FROM shop_orders WHERE id = ?", order));
        // the row is due in an hour: it is still in the outbox, exactly as written
        assertEquals(1, Sql.count("SELECT count(*) FROM outbox WHERE id = ? AND app_id = ? AND origin_principal IS NOT NULL", row, app));
        Sql.update("DELETE FROM outbox WHERE id = ?", row);
    }

    @Test
    @OperateOnDeployment("shop")
    void aRefusedEnqueueRollsTheCallersTransactionBack() {
        UUID order = UUID.randomUUID();
        EJBException e = assertThrows(EJBException.class, () -> shop.placeOrderWithKind(order, app, trigger, "telepathy"));
        assertTrue(String.valueOf(e.getCause()).contains("unknown source kind 'telepathy'"), String.valueOf(e.getCause()));
        assertEquals(0, Sql.count("SELECT count(*) FROM shop_orders WHERE id = ?", order));
    }
}
