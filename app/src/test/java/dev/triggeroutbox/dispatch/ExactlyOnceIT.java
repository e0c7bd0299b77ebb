package dev.triggeroutbox.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.dispatch.control.DispatchCycle;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Recorder;
import dev.triggeroutbox.testkit.Sql;
import dev.triggeroutbox.triggers.control.Triggers;
import dev.triggeroutbox.triggers.entity.TargetType;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly once without faults: 10,000 due rows drained by three dispatchers at once (this node's
 * timer-driven one and two more claimers acting as other nodes, each on its own connections).
 */
@ExtendWith(ArquillianExtension.class)
class ExactlyOnceIT {

    private static final int ROWS = 10_000;

    @Deployment
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @Inject
    Triggers triggers;

    @Inject
    DispatchCycle cycle;

    @Inject
    Recorder recorder;

    @Resource
    ManagedExecutorService executor;

    @Test
    void tenThousandRowsThreeDispatchersEachRowDeliveredOnce() throws Exception {
        AppId app = AppId.random();
        TriggerId trigger = triggers.create(app, SourceKind.KV, TargetType.HANDLER, "recorder", null, null, null, true)
                .id();
        long start = System.nanoTime();
        Sql.update("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload)
                SELECT gen_random_uuid(), ?, 'kv', ?, jsonb_build_object('n', n) FROM generate_series(1, ?) n""",
                app.value(), trigger.value(), ROWS);
        List<UUID> ids = Sql.query("SELECT id FROM outbox WHERE app_id = ?", app.value()).stream()
                .map(r -> (UUID) r[0]).toList();
        assertEquals(ROWS, ids.size());

        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> otherNodes = new ArrayList<>();
        for (String node : List.of("it-node-2", "it-node-3")) {
            otherNodes.add(executor.submit(() -> {
                while (!stop.get()) {
                    if (cycle.runOnce(node).rows() == 0) {
                        Thread.sleep(20);
                    }
                }
                return null;
            }));
        }
        try {
            Eventually.until(Duration.ofMinutes(3),
                    () -> Sql.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app.value()) == ROWS,
                    () -> Sql.count("SELECT count(*) FROM delivery_history WHERE app_id = ?", app.value())
                            + " finished");
        } finally {
            stop.set(true);
            for (Future<?> node : otherNodes) {
                node.get();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("exactly-once drain: %d rows in %.2f s (%.0f rows/s)%n", ROWS, seconds, ROWS / seconds);

        List<UUID> notOnce = ids.stream().filter(id -> recorder.count(id) != 1).toList();
        assertTrue(notOnce.isEmpty(),
                notOnce.size() + " rows not delivered exactly once, e.g. " + notOnce.stream().limit(5).toList());
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app.value()));
        assertEquals(ROWS, Sql.count("SELECT count(*) FROM delivery_history WHERE app_id = ? AND outcome = 'delivered'",
                app.value()));
        Map<Object, Long> byNode = Sql
                .query("SELECT finished_by, count(*) FROM delivery_history WHERE app_id = ? GROUP BY 1",
                        app.value())
                .stream().collect(Collectors.toMap(r -> r[0], r -> ((Number) r[1]).longValue()));
        System.out.println("rows finished per dispatcher: " + byNode);
        assertTrue(byNode.size() >= 2, "more than one dispatcher should have taken part: " + byNode);
    }
}
