package dev.triggeroutbox.dispatch;

import dev.triggeroutbox.outbox.boundary.Outbox;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Test-only endpoint of {@link CommitNotifyIT}'s producing node: publishes through the Java API, each event its
 * own JTA transaction, and says when each committed (wall clock in microseconds, taken by a transaction
 * synchronization, so the time before the commit is not counted); or publishes in a transaction that rolls back.
 */
@Path("it/commit-probe")
@ApplicationScoped
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class CommitProbe {

    private static final int PRODUCERS = 4;

    @Inject
    Outbox outbox;

    @Inject
    UserTransaction tx;

    @Resource
    TransactionSynchronizationRegistry registry;

    @Resource
    ManagedExecutorService executor;

    /**
     * {@code {"app", "rate", "seconds"}}: events {@code {"seq": i}} of kind kv on a fixed schedule (open loop, by
     * {@value #PRODUCERS} producers); answers {@code {"commits": [µs of event i's commit]}}.
     */
    @POST
    @Path("load")
    public JsonObject load(JsonObject body) throws Exception {
        AppId app = new AppId(UUID.fromString(body.getString("app")));
        int rate = body.getInt("rate");
        int events = rate * body.getInt("seconds");
        long[] commits = new long[events];
        long every = TimeUnit.SECONDS.toNanos(1) / rate;
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        List<Future<?>> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int first = p;
            producers.add(executor.submit(() -> {
                for (int i = first; i < events; i += PRODUCERS) {
                    LockSupport.parkNanos(start + i * every - System.nanoTime());
                    int seq = i;
                    tx.begin();
                    outbox.publish(app, SourceKind.KV, "{\"seq\":" + seq + "}", "it-probe", null, 0, null);
                    registry.registerInterposedSynchronization(new Synchronization() {
                        @Override
                        public void beforeCompletion() {
                            // the instant that counts is after the commit
                        }

                        @Override
                        public void afterCompletion(int status) {
                            commits[seq] = status == Status.STATUS_COMMITTED ? micros(Instant.now()) : -1;
                        }
                    });
                    tx.commit();
                }
                return null;
            }));
        }
        for (Future<?> f : producers) {
            f.get();
        }
        JsonArrayBuilder answer = Json.createArrayBuilder();
        for (long c : commits) {
            answer.add(c);
        }
        return Json.createObjectBuilder().add("commits", answer).build();
    }

    /** {@code {"app"}}: publishes one event in a transaction that then rolls back; answers the rows it had written. */
    @POST
    @Path("rollback")
    public JsonObject rollback(JsonObject body) throws Exception {
        AppId app = new AppId(UUID.fromString(body.getString("app")));
        tx.begin();
        try {
            int rows = outbox.publish(app, SourceKind.KV, "{\"rolledBack\":true}", "it-probe", null, 0, null).size();
            return Json.createObjectBuilder().add("rows", rows).build();
        } finally {
            tx.rollback();
        }
    }

    static long micros(Instant at) {
        return at.getEpochSecond() * 1_000_000 + at.getNano() / 1_000;
    }
}
