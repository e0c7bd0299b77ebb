package dev.triggeroutbox.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.api.OutboxMessage;
import dev.triggeroutbox.api.OutboxProducer;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Sql;
import dev.triggeroutbox.testkit.WildFlyOnly;
import jakarta.ejb.EJBException;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.junit.jupiter.api.function.Executable;

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
        Sql.update(
                "INSERT INTO triggers (id, app_id, source_kind, target_type, target) VALUES (?, ?, 'docs', 'handler', 'recorder')",
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
        assertEquals(1, Sql.count(
                "SELECT count(*) FROM outbox WHERE id = ? AND app_id = ? AND origin_principal IS NOT NULL", row, app));
        Sql.update("DELETE FROM outbox WHERE id = ?", row);
    }

    @Test
    @OperateOnDeployment("shop")
    void aRefusedEnqueueRollsTheCallersTransactionBack() {
        UUID order = UUID.randomUUID();
        EJBException e = assertThrows(EJBException.class,
                () -> shop.placeOrderWithKind(order, app, trigger, "telepathy"));
        assertTrue(String.valueOf(e.getCause()).contains("unknown source kind 'telepathy'"),
                String.valueOf(e.getCause()));
        assertEquals(0, Sql.count("SELECT count(*) FROM shop_orders WHERE id = ?", order));
    }

    @Test
    @OperateOnDeployment("shop")
    void theJavaApiIsHeldToTheLimitsOfEveryProducer() {
        OffsetDateTime now = OffsetDateTime.now();
        Map<String, Executable> refused = new LinkedHashMap<>();
        refused.put("payload: must be JSON text", () -> shop.enqueue(app, trigger, "{", 0, null));
        refused.put("exceeds the limit of 262144 bytes",
                () -> shop.enqueue(app, trigger, "\"" + "x".repeat(300_000) + "\"", 0, null));
        refused.put("as stored: exceeds the limit of 262144 bytes",
                () -> shop.enqueue(app, trigger, "[1e131071, 1e131071]", 0, null));
        refused.put("digits before the decimal point", () -> shop.enqueue(app, trigger, "{\"n\":1e131072}", 0, null));
        refused.put("NUL character", () -> shop.enqueue(app, trigger, "{\"s\":\"\\u0000\"}", 0, null));
        refused.put("exceeds the maximum of 8", () -> shop.enqueue(app, trigger, "{}", 99, null));
        refused.put("deliverAt: must lie within 10 years of now",
                () -> shop.enqueue(app, trigger, "{}", 0, now.plusYears(100)));
        refused.put("publish: payload: must be JSON text", () -> shop.publish(app, "not json"));
        refused.forEach((expected, call) -> {
            EJBException e = assertThrows(EJBException.class, call, expected);
            String said = messages(e);
            assertTrue(said.contains(expected.replaceFirst("^(publish|as stored): ", "")), expected + " -> " + said);
            assertTrue(said.contains("IllegalArgumentException"), "a JDK exception the caller can read: " + said);
        });
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app));
    }

    @Test
    @OperateOnDeployment("shop")
    void rowsFromAnotherDeploymentJoinTheLaneOfTheirOrderingKey() {
        List<UUID> rows = shop.keyed(app, trigger, "customer-7");
        assertEquals(2, rows.size(), "the enqueued row and the published one");
        assertEquals(2, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ? AND ordering_key = 'customer-7'", app));
        Sql.update("DELETE FROM outbox WHERE app_id = ?", app);

        EJBException e = assertThrows(EJBException.class, () -> shop.keyed(app, trigger, ""));
        String said = messages(e);
        assertTrue(said.contains("orderingKey must be 1 to 200 characters"), said);
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app), "refused: nothing written");
    }

    @Test
    @OperateOnDeployment("shop")
    void aDatabaseFailureReachesTheCallerAsAFixedSentence() {
        EJBException e = assertThrows(EJBException.class, () -> shop.enqueueWithTheTablesHidden(app, trigger));
        String said = messages(e);
        assertTrue(said.contains("enqueue failed: the outbox could not write to its database (incident "), said);
        for (String leak : new String[] {"ERROR:", "relation", "no_such_schema", "PSQLException", "INSERT"}) {
            assertFalse(said.contains(leak), "the database's text reached the caller (" + leak + "): " + said);
        }
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app));
    }

    /** Every exception of the chain with its message, as a caller would log it. */
    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t).append(" | ");
        }
        return all.toString();
    }
}
