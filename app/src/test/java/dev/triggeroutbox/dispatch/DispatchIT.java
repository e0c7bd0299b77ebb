package dev.triggeroutbox.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.dispatch.control.Claims;
import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.dispatch.entity.BatchOutcome;
import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.control.UnknownTriggerException;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ClaimToken;
import dev.triggeroutbox.outbox.entity.ExecutionId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.OutboxId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Eventually;
import dev.triggeroutbox.testkit.Recorder;
import dev.triggeroutbox.testkit.Sql;
import dev.triggeroutbox.testkit.TestHandlers;
import dev.triggeroutbox.triggers.control.Triggers;
import dev.triggeroutbox.triggers.entity.TargetType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The engine on a real WildFly and PostgreSQL: delivery, retry with backoff, dead letters, rows
 * that must not be delivered, poison rows, lease recovery and fencing. The server runs with the
 * short intervals of arquillian.xml (poll 200 ms, lease 3 s, delivery timeout 1 s, 3 attempts,
 * backoff 50..400 ms).
 */
@ExtendWith(ArquillianExtension.class)
class DispatchIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long POLL_MS = 200;

    @Deployment
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @Inject
    Outbox outbox;

    @Inject
    Triggers triggers;

    @Inject
    Claims claims;

    @Inject
    DispatchCounters counters;

    @Inject
    Recorder recorder;

    private final AppId app = AppId.random();

    private TriggerId trigger(String handler, Integer maxAttempts) {
        return triggers.create(app, SourceKind.KV, TargetType.HANDLER, handler, null, null, maxAttempts, true).id();
    }

    private OutboxId enqueue(TriggerId trigger, String payload) throws Exception {
        return outbox.enqueue(NewOutboxRow.to(app, SourceKind.KV, trigger, payload));
    }

    private static String historyOutcome(OutboxId id) {
        List<Object[]> rows = Sql.query("SELECT outcome FROM delivery_history WHERE outbox_id = ?", id.value());
        return rows.isEmpty() ? null : (String) rows.get(0)[0];
    }

    private static Object[] deadLetter(OutboxId id) {
        List<Object[]> rows = Sql.query("SELECT attempt_count, last_error FROM dead_letters WHERE id = ?", id.value());
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static long inOutbox(OutboxId id) {
        return Sql.count("SELECT count(*) FROM outbox WHERE id = ?", id.value());
    }

    @Test
    void deliversOnceThenKeepsTheRowInHistory() throws Exception {
        OutboxId id = enqueue(trigger("recorder", null), "{\"key\":\"k1\"}");

        Eventually.until(WAIT, () -> "delivered".equals(historyOutcome(id)), () -> "history: " + historyOutcome(id));
        assertEquals(1, recorder.count(id.value()));
        Recorder.Received got = recorder.of(id.value()).get(0);
        assertEquals("{\"key\": \"k1\"}", got.delivery().payload());
        assertEquals("kv", got.delivery().sourceKind());
        assertEquals(1, got.delivery().attempt());
        assertEquals(id.value(), got.delivery().rootExecutionId(), "a row without a given root is its own root");
        assertEquals(0, inOutbox(id));
    }

    @Test
    void enqueueWritesEveryFieldItWasGiven() throws Exception {
        TriggerId trigger = trigger("recorder", null);
        ExecutionId root = ExecutionId.random();
        OutboxId id = outbox.enqueue(NewOutboxRow.to(app, SourceKind.DOCS, trigger, "{\"a\":1}")
                .withLineage(root, 3).withOrigin("it").withMaxAttempts(7).deliverAt(OffsetDateTime.now().plusHours(1)));
        Object[] row = Sql.query("""
                SELECT app_id, source_kind, trigger_id, root_execution_id, trigger_depth, max_attempts, origin_principal,
                       attempt_count, next_attempt_at > now() + interval '59 minutes', claim_token IS NULL
                FROM outbox WHERE id = ?""", id.value()).get(0);
        assertEquals(app.value(), row[0]);
        assertEquals("docs", row[1]);
        assertEquals(trigger.value(), row[2]);
        assertEquals(root.value(), row[3]);
        assertEquals(3, row[4]);
        assertEquals(7, row[5]);
        assertEquals("it", row[6]);
        assertEquals(0, row[7]);
        assertEquals(Boolean.TRUE, row[8], "delivered at the time given");
        assertEquals(Boolean.TRUE, row[9], "not claimed");
        Sql.update("DELETE FROM outbox WHERE id = ?", id.value());
    }

    @Test
    void retriesWithBackoffThenSucceeds() throws Exception {
        OutboxId id = enqueue(trigger("flaky", 5), "{\"failures\": 2}");

        Eventually.until(WAIT, () -> "delivered".equals(historyOutcome(id)),
                () -> "attempts: " + recorder.count(id.value()));
        List<Recorder.Received> attempts = recorder.of(id.value());
        assertEquals(List.of(1, 2, 3), attempts.stream().map(r -> r.delivery().attempt()).toList());
        // failed attempt n waits at most min(cap, base * 2^(n-1)) = 50, then 100 ms, plus one poll (reschedules wake no one)
        for (int n = 1; n < attempts.size(); n++) {
            long gap = Duration.between(attempts.get(n - 1).at(), attempts.get(n).at()).toMillis();
            long ceiling = Math.min(400, 50L << (n - 1));
            assertTrue(gap <= ceiling + POLL_MS + 500, "gap after attempt " + n + " was " + gap + " ms");
        }
        assertEquals(3, ((Number) Sql.query("SELECT attempt_count FROM delivery_history WHERE outbox_id = ?",
                id.value()).get(0)[0]).intValue());
    }

    @Test
    void rescheduleKeepsTheNextAttemptWithinTheJitterBound() throws Exception {
        // a row that keeps failing: catch it between attempts, read how far ahead its next attempt is
        OutboxId id = enqueue(trigger("failing", 50), "{}");
        AtomicReference<Double> aheadMs = new AtomicReference<>();
        Eventually.until(WAIT, () -> {
            List<Object[]> row = Sql.query("""
                    SELECT extract(epoch FROM (next_attempt_at - now())) * 1000 FROM outbox
                    WHERE id = ? AND claim_token IS NULL AND last_error IS NOT NULL""", id.value());
            row.forEach(r -> aheadMs.set(((Number) r[0]).doubleValue()));
            return !row.isEmpty();
        }, () -> "row never seen between attempts");
        assertTrue(aheadMs.get() <= 400, "next attempt " + aheadMs.get() + " ms ahead, above the 400 ms cap");
        Sql.update("UPDATE triggers SET max_attempts = 1 WHERE id = ?", triggerOf(id));
        Eventually.until(WAIT, () -> deadLetter(id) != null, () -> "not dead-lettered once out of attempts");
    }

    private static UUID triggerOf(OutboxId id) {
        return (UUID) Sql.query("SELECT trigger_id FROM outbox WHERE id = ?", id.value()).get(0)[0];
    }

    @Test
    void deadLettersAfterMaxAttemptsKeepingTheLastError() throws Exception {
        OutboxId id = enqueue(trigger("failing", 3), "{}");

        Eventually.until(WAIT, () -> deadLetter(id) != null, () -> "attempts: " + recorder.count(id.value()));
        Object[] dead = deadLetter(id);
        assertEquals(3, ((Number) dead[0]).intValue());
        assertEquals("IllegalStateException: boom on attempt 3", dead[1]);
        assertEquals(3, recorder.count(id.value()));
        assertEquals("dead", historyOutcome(id));
        assertEquals(0, inOutbox(id));
    }

    @Test
    void unknownSourceKindIsDeadLetteredNotSkipped() {
        TriggerId trigger = trigger("recorder", null);
        UUID id = UUID.randomUUID();
        Sql.update(
                "INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload) VALUES (?, ?, 'telepathy', ?, '{}')",
                id, app.value(), trigger.value());

        Eventually.until(WAIT, () -> deadLetter(new OutboxId(id)) != null, () -> "no dead letter");
        assertTrue(((String) deadLetter(new OutboxId(id))[1]).startsWith("unknown source kind 'telepathy'"));
        assertEquals(0, recorder.count(id));
    }

    @Test
    void rowOfATriggerDeletedMeanwhileIsDeadLettered() throws Exception {
        TriggerId gone = trigger("recorder", null);
        OutboxId id = outbox.enqueue(
                NewOutboxRow.to(app, SourceKind.KV, gone, "{}").deliverAt(OffsetDateTime.now().plusSeconds(1)));
        Sql.update("DELETE FROM triggers WHERE id = ?", gone.value());

        Eventually.until(WAIT, () -> deadLetter(id) != null, () -> "no dead letter");
        assertEquals("trigger " + gone + " does not exist", deadLetter(id)[1]);
    }

    @Test
    void aRowCannotNameAnotherAppsTriggerNorAnUnknownOne() {
        TriggerId others = triggers
                .create(AppId.random(), SourceKind.KV, TargetType.HANDLER, "recorder", null, null, null, true).id();
        for (TriggerId trigger : List.of(others, TriggerId.random())) {
            assertThrows(UnknownTriggerException.class, () -> enqueue(trigger, "{}"));
        }
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app.value()));
    }

    @Test
    void handlersThatWaitRunSideBySide() throws Exception {
        // twelve deliveries must be inside the handler at once (the server's default executor has 4
        // threads on 2 cores, Payara's one): each meets the others or fails after 900 ms
        TestHandlers.Rendezvous.barrier = new java.util.concurrent.CyclicBarrier(TestHandlers.Rendezvous.PARTIES);
        TriggerId meet = trigger("rendezvous", 1);
        List<OutboxId> rows = new ArrayList<>();
        for (int i = 0; i < TestHandlers.Rendezvous.PARTIES; i++) {
            rows.add(enqueue(meet, "{\"n\":" + i + "}"));
        }
        Eventually.until(WAIT, () -> rows.stream().allMatch(id -> recorder.count(id.value()) == 1 && inOutbox(id) == 0),
                () -> "still in the outbox: " + rows.stream().filter(id -> inOutbox(id) > 0).count());
        for (OutboxId id : rows) {
            assertNull(deadLetter(id), "dead-lettered (the deliveries never met): " + id);
        }
    }

    @Test
    void poisonRowsEndAsDeadLettersWhileOtherRowsFlow() throws Exception {
        OutboxId throwing = enqueue(trigger("failing", 3), "{}");
        OutboxId hanging = enqueue(trigger("hanging", 2), "{}");
        Eventually.until(WAIT, () -> recorder.count(hanging.value()) >= 1, () -> "hanging row not started");

        // while the hanging delivery holds its permit, other rows go through
        TriggerId fine = trigger("recorder", null);
        List<OutboxId> others = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            others.add(enqueue(fine, "{\"n\":" + i + "}"));
        }
        Eventually.until(Duration.ofSeconds(10),
                () -> others.stream().allMatch(id -> recorder.count(id.value()) == 1),
                () -> "delivered: " + others.stream().filter(id -> recorder.count(id.value()) == 1).count());

        Eventually.until(WAIT, () -> deadLetter(throwing) != null && deadLetter(hanging) != null,
                () -> "poison rows still live");
        assertEquals("delivery timed out after 1000 ms", deadLetter(hanging)[1]);
        assertEquals(2, recorder.count(hanging.value()));
        assertEquals(3, recorder.count(throwing.value()));
    }

    @Test
    void aDeadLetterTellsTheAppsDeadLetterTriggersOnceAndDoesNotCascade() throws Exception {
        TriggerId heard = triggers
                .create(app, SourceKind.DEAD_LETTER, TargetType.HANDLER, "recorder", null, null, null, true).id();
        TriggerId alsoFailing = triggers
                .create(app, SourceKind.DEAD_LETTER, TargetType.HANDLER, "failing", null, null, 1, true).id();
        OutboxId id = enqueue(trigger("failing", 1), "{\"order\": 7}");

        Eventually.until(WAIT, () -> deadLetter(id) != null, () -> "not dead");
        Eventually.until(WAIT, () -> Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app.value()) == 0
                && Sql.count("SELECT count(*) FROM dead_letters WHERE app_id = ? AND trigger_id = ?", app.value(),
                        alsoFailing.value()) == 1,
                () -> "cascade still running");
        List<Object[]> told = Sql.query("""
                SELECT outbox_id, trigger_depth, root_execution_id FROM delivery_history
                WHERE app_id = ? AND trigger_id = ? AND outcome = 'delivered'""", app.value(), heard.value());
        assertEquals(1, told.size(), "the recorder heard of the dead letter once");
        UUID event = (UUID) told.get(0)[0];
        String payload = recorder.of(event).get(0).delivery().payload();
        assertTrue(payload.contains(id.toString()) && payload.contains("boom on attempt 1")
                && payload.contains("\"order\": 7"), payload);
        assertEquals(1, ((Number) told.get(0)[1]).intValue(), "one level deeper");
        assertEquals(id.value(), told.get(0)[2], "same root");
        // the failing dead_letter trigger's own row died too, and told no one: exactly two dead letters
        assertEquals(2, Sql.count("SELECT count(*) FROM dead_letters WHERE app_id = ?", app.value()));
    }

    @Test
    void invokeAsyncWritesOneDeeperRowOfTheSameCascadeWithOneAttempt() throws Exception {
        TriggerId target = trigger("recorder", null);
        OutboxId parent = enqueue(trigger("invoker", null), "{\"target\": \"" + target + "\"}");
        Eventually.until(WAIT, () -> "delivered".equals(historyOutcome(parent)), () -> "parent not delivered");
        // the child was written in the handler's own transaction, before the parent was finished
        List<Object[]> children = Sql.query(
                """
                SELECT id FROM outbox WHERE trigger_id = ? UNION ALL SELECT outbox_id FROM delivery_history WHERE trigger_id = ?""",
                target.value(), target.value());
        assertEquals(1, children.size());
        UUID child = (UUID) children.get(0)[0];
        Eventually.until(WAIT, () -> recorder.count(child) == 1, () -> "child not delivered");
        var got = recorder.of(child).get(0).delivery();
        assertEquals("invoke", got.sourceKind());
        assertEquals(1, got.triggerDepth());
        assertEquals(parent.value(), got.rootExecutionId());
        assertEquals(1, got.maxAttempts());
    }

    @Test
    void aSelfTriggeringCycleStopsAtTheMaximumDepth() throws Exception {
        OutboxId first = enqueue(trigger("cascader", null), "{}");
        // depths 0..8 deliver and invoke again; the invoke at depth 9 is refused, so the depth-8 row fails once and dies
        // (the depth-8 row can die before its parent's batch has finished: wait for both)
        Eventually.until(WAIT, () -> Sql.count("SELECT count(*) FROM dead_letters WHERE root_execution_id = ?",
                first.value()) == 1
                && Sql.count(
                        "SELECT count(*) FROM delivery_history WHERE root_execution_id = ? AND outcome = 'delivered'",
                        first.value()) >= 8,
                () -> Sql.count("SELECT count(*) FROM delivery_history WHERE root_execution_id = ?", first.value())
                        + " finished");
        Object[] dead = Sql
                .query("SELECT trigger_depth, last_error FROM dead_letters WHERE root_execution_id = ?", first.value())
                .get(0);
        assertEquals(8, ((Number) dead[0]).intValue());
        assertTrue(((String) dead[1]).contains("exceeds outbox.max-trigger-depth 8"), (String) dead[1]);
        assertEquals(8,
                Sql.count("SELECT count(*) FROM delivery_history WHERE root_execution_id = ? AND outcome = 'delivered'",
                        first.value()));
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE root_execution_id = ?", first.value()),
                "the cycle ended");
    }

    @Test
    void rowOfADeadNodeIsDeliveredAfterItsLeaseAndTheZombieIsFenced() throws Exception {
        TriggerId trigger = trigger("recorder", null);
        UUID id = UUID.randomUUID();
        ClaimToken zombie = ClaimToken.random();
        // a claim left behind by a node that died: attempt 1 counted, lease running for another second
        Sql.update("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, attempt_count, claimed_at,
                                    claimed_by, claim_token, lease_expires_at)
                VALUES (?, ?, 'kv', ?, '{}', 1, now(), 'dead-node', ?, now() + interval '1 second')""",
                id, app.value(), trigger.value(), zombie.value());
        Instant leaseEnd = ((Timestamp) Sql.query("SELECT lease_expires_at FROM outbox WHERE id = ?", id).get(0)[0])
                .toInstant();
        long recoveredBefore = counters.leasesRecovered();

        Eventually.until(WAIT, () -> recorder.count(id) == 1, () -> "not delivered after the lease");
        Recorder.Received got = recorder.of(id).get(0);
        assertTrue(!got.at().isBefore(leaseEnd), "delivered at " + got.at() + " before the lease ended " + leaseEnd);
        assertEquals(2, got.delivery().attempt(), "the dead node's claim counted as attempt 1");
        assertTrue(counters.leasesRecovered() > recoveredBefore);
        Eventually.until(WAIT, () -> "delivered".equals(historyOutcome(new OutboxId(id))), () -> "not finished");

        // the dead node wakes up and reports: nothing changes, and it is counted
        BatchOutcome late = new BatchOutcome();
        late.delivered(new OutboxId(id), zombie);
        late.retry(new OutboxId(id), zombie, 0, "late");
        Claims.Finished finished = claims.finish("dead-node", late);
        assertEquals(new Claims.Finished(0, 0, 0, 2), finished);
        assertEquals("delivered", historyOutcome(new OutboxId(id)));
        assertEquals(1, recorder.count(id));
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE id = ?", id));
    }

    @Test
    void aCompletionAfterTheLeaseExpiredIsFencedEvenBeforeAnotherClaim() throws Exception {
        TriggerId trigger = trigger("recorder", null);
        UUID id = UUID.randomUUID();
        ClaimToken token = ClaimToken.random();
        // claimed, lease already over, not yet recovered: the claimer may no longer finish it
        Sql.update("""
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, attempt_count, claimed_at,
                                    claimed_by, claim_token, lease_expires_at, next_attempt_at)
                VALUES (?, ?, 'kv', ?, '{}', 1, now(), 'slow-node', ?, now() - interval '1 millisecond',
                        now() + interval '1 hour')""",
                id, app.value(), trigger.value(), token.value());
        BatchOutcome late = new BatchOutcome();
        late.dead(new OutboxId(id), token, "late");
        assertEquals(new Claims.Finished(0, 0, 0, 1), claims.finish("slow-node", late));
        assertEquals(0, Sql.count("SELECT count(*) FROM dead_letters WHERE id = ?", id));
        Sql.update("DELETE FROM outbox WHERE id = ?", id);
    }

    @Test
    void a410DisablesItsTriggerOnlyWithTheFencedFinishAndNeverSinksTheBatch() throws Exception {
        TriggerId lateGone = trigger("recorder", null);
        TriggerId gone = trigger("recorder", null);
        UUID late = UUID.randomUUID();
        UUID fresh = UUID.randomUUID();
        UUID orphan = UUID.randomUUID();
        UUID fine = UUID.randomUUID();
        ClaimToken token = ClaimToken.random();
        // one claim's rows: a 410 that arrived after the lease, a 410 in time, a 410 of a trigger deleted
        // meanwhile, and a delivered row of the late one's trigger
        String claimed = """
                INSERT INTO outbox (id, app_id, source_kind, trigger_id, payload, attempt_count, claimed_at,
                                    claimed_by, claim_token, lease_expires_at, next_attempt_at)
                VALUES (?, ?, 'kv', ?, '{}', 1, now(), 'gone-node', ?, now() + ? * interval '1 millisecond',
                        now() + interval '1 hour')""";
        Sql.update(claimed, late, app.value(), lateGone.value(), token.value(), -1);
        Sql.update(claimed, fresh, app.value(), gone.value(), token.value(), 60_000);
        Sql.update(claimed, orphan, app.value(), UUID.randomUUID(), token.value(), 60_000);
        Sql.update(claimed, fine, app.value(), lateGone.value(), token.value(), 60_000);
        BatchOutcome window = new BatchOutcome();
        window.dead(new OutboxId(late), token, "webhook answered 410 Gone", true);
        window.dead(new OutboxId(fresh), token, "webhook answered 410 Gone", true);
        window.dead(new OutboxId(orphan), token, "webhook answered 410 Gone", true);
        window.delivered(new OutboxId(fine), token);

        Claims.Finished finished = claims.finish("gone-node", window);

        assertEquals(1, finished.delivered());
        assertEquals(2, finished.dead());
        assertEquals(1, finished.fenced());
        assertTrue(triggers.find(app, lateGone).orElseThrow().enabled(), "a late, fenced 410 disabled its trigger");
        assertFalse(triggers.find(app, gone).orElseThrow().enabled(), "the 410 in time did not disable its trigger");
        assertEquals("delivered", historyOutcome(new OutboxId(fine)));
        assertEquals(1, Sql.count("SELECT count(*) FROM dead_letters WHERE id = ?", fresh));
        assertEquals(1, Sql.count("SELECT count(*) FROM dead_letters WHERE id = ?", orphan),
                "a 410 without its trigger sank the batch");
        assertEquals(0, Sql.count("SELECT count(*) FROM dead_letters WHERE id = ?", late));
        Sql.update("DELETE FROM outbox WHERE id = ?", late);
    }
}
