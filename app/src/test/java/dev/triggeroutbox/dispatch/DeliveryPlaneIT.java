package dev.triggeroutbox.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.targets.control.DeliveryThreads;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Recorder;
import dev.triggeroutbox.testkit.Sql;
import dev.triggeroutbox.testkit.TestHandlers;
import dev.triggeroutbox.triggers.control.Triggers;
import dev.triggeroutbox.triggers.entity.TargetType;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The delivery plane in the server: a row is finished when its own delivery ends, not with the rest of
 * its claim, and one app's handlers that hold their threads leave the other apps theirs. The slow
 * target is the {@code gate} handler, which holds every delivery until the test opens it.
 */
@ExtendWith(ArquillianExtension.class)
class DeliveryPlaneIT {

    /** Less than the gate's 900 ms: a check that needs the gate open to pass fails. */
    private static final Duration WHILE_GATED = Duration.ofMillis(700);

    @Deployment
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @Inject
    Outbox outbox;

    @Inject
    Triggers triggers;

    @Inject
    Recorder recorder;

    @Inject
    DeliveryThreads threads;

    @Resource
    UserTransaction tx;

    @AfterEach
    void openTheGate() {
        TestHandlers.Gate.open.countDown();
    }

    private TriggerId trigger(AppId app, String handler) {
        return triggers.create(app, SourceKind.KV, TargetType.HANDLER, handler, null, null, null, true).id();
    }

    private static String historyOutcome(OutboxId id) {
        List<Object[]> rows = Sql.query("SELECT outcome FROM delivery_history WHERE outbox_id = ?", id.value());
        return rows.isEmpty() ? null : (String) rows.get(0)[0];
    }

    @Test
    void aRowIsFinishedWhenItsOwnDeliveryEndsNotWithItsClaim() throws Exception {
        TestHandlers.Gate.open = new CountDownLatch(1);
        AppId slowApp = AppId.random();
        AppId fastApp = AppId.random();
        TriggerId gate = trigger(slowApp, "gate");
        TriggerId quick = trigger(fastApp, "recorder");
        // one commit, so one claim takes both
        tx.begin();
        OutboxId held = outbox.enqueue(NewOutboxRow.to(slowApp, SourceKind.KV, gate, "{}"));
        OutboxId done = outbox.enqueue(NewOutboxRow.to(fastApp, SourceKind.KV, quick, "{}"));
        tx.commit();

        Eventually.until(WHILE_GATED, () -> "delivered".equals(historyOutcome(done)),
                () -> "the quick row is " + historyOutcome(done) + " while its claim's other row is held");
        assertEquals(1, recorder.count(held.value()), "the held row is still in its delivery");
        assertEquals(null, historyOutcome(held));
        TestHandlers.Gate.open.countDown();
        Eventually.until(Duration.ofSeconds(10), () -> "delivered".equals(historyOutcome(held)),
                () -> "held row not finished");
    }

    @Test
    void oneAppsHeldHandlersLeaveTheOtherAppsTheirThreads() throws Exception {
        TestHandlers.Gate.open = new CountDownLatch(1);
        AppId greedy = AppId.random();
        AppId other = AppId.random();
        TriggerId gate = trigger(greedy, "gate");
        TriggerId quick = trigger(other, "recorder");
        List<OutboxId> greedyRows = new ArrayList<>();
        tx.begin();
        for (int i = 0; i < 40; i++) { // more than the node's 32 delivery threads
            greedyRows.add(outbox.enqueue(NewOutboxRow.to(greedy, SourceKind.KV, gate, "{\"n\":" + i + "}")));
        }
        tx.commit();
        Eventually.until(Duration.ofSeconds(10), () -> TestHandlers.Gate.inside.get() >= threads.perApp(),
                () -> TestHandlers.Gate.inside.get() + " inside the gate");

        List<OutboxId> others = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            others.add(outbox.enqueue(NewOutboxRow.to(other, SourceKind.KV, quick, "{\"n\":" + i + "}")));
        }
        Eventually.until(WHILE_GATED, () -> others.stream().allMatch(id -> recorder.count(id.value()) == 1),
                () -> others.stream().filter(id -> recorder.count(id.value()) == 1).count()
                        + " of 20 delivered while the gate holds "
                        + TestHandlers.Gate.inside.get());
        assertTrue(TestHandlers.Gate.inside.get() <= threads.perApp(),
                TestHandlers.Gate.inside.get() + " of one app's deliveries hold threads; its share is "
                        + threads.perApp());

        TestHandlers.Gate.open.countDown();
        Eventually.until(Duration.ofSeconds(20),
                () -> greedyRows.stream().allMatch(id -> "delivered".equals(historyOutcome(id))),
                () -> greedyRows.stream().filter(id -> "delivered".equals(historyOutcome(id))).count()
                        + " of 40 delivered");
        for (OutboxId id : greedyRows) {
            assertEquals(1, recorder.count(id.value()), "delivered once: " + id);
        }
    }
}
