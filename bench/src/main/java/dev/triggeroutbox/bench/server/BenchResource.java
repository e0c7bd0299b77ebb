package dev.triggeroutbox.bench.server;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewEvent;
import dev.triggeroutbox.outbox.entity.SourceKind;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code /api/v1/bench}: load the benchmark harness drives from outside. Present only in the benchmark's
 * copy of the WAR. Producer threads come from the managed thread factory, never from the managed
 * executor, whose threads are the dispatcher's delivery threads.
 */
@Path("bench")
@RequestScoped
@RolesAllowed("outbox-admin")
@Produces(MediaType.APPLICATION_JSON)
public class BenchResource {

    private static final long DRAIN_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    @Inject
    BenchProducer producer;

    @Inject
    Probe probe;

    @Resource
    ManagedThreadFactory threads;

    /** Deliveries the no-op handler has seen since the deployment started. */
    @GET
    @Path("handled")
    public String handled() {
        return "{\"handled\":" + probe.handled() + "}";
    }

    /**
     * Offers {@code rate} events/s for {@code seconds}, each in its own transaction, on a fixed schedule
     * (a producer that falls behind catches up rather than lowering the load); then waits until every
     * event's delivery has started and answers commit → delivery-start percentiles.
     */
    @POST
    @Path("latency")
    public Response latency(@QueryParam("app") String app, @QueryParam("rate") int rate,
            @QueryParam("seconds") int seconds, @QueryParam("producers") @DefaultValue("4") int producers)
            throws InterruptedException {
        AppId appId = AppId.parse(app);
        int events = rate * seconds;
        LatencyRecord record = probe.record(events);
        try {
            AtomicLong worstLag = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            List<Thread> started = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int first = p;
                started.add(threads.newThread(() -> {
                    for (int seq = first; seq < events && failure.get() == null; seq += producers) {
                        long due = t0 + seq * 1_000_000_000L / rate;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        } else {
                            worstLag.accumulateAndGet(-wait, Math::max);
                        }
                        int s = seq;
                        try {
                            producer.publish(appId, "{\"probe\":" + seq + "}", () -> record.committed(s));
                        } catch (Exception | Error e) {
                            failure.compareAndSet(null, e);
                        }
                    }
                }));
            }
            started.forEach(Thread::start);
            for (Thread t : started) {
                t.join();
            }
            double sendSeconds = (System.nanoTime() - t0) / 1e9;
            if (failure.get() != null) {
                return error("publishing failed: " + failure.get());
            }
            long deadline = System.nanoTime() + DRAIN_WAIT_NANOS;
            while (record.startedCount() < events && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            String summary = record.summary(events);
            return Response.ok(String.format(Locale.ROOT,
                    "{\"sent\":%d,\"committed\":%d,\"delivered\":%d,\"sendSeconds\":%.3f,\"worstLagMs\":%.3f,\"latency\":%s}",
                    events, record.committedCount(), record.startedCount(), sendSeconds, worstLag.get() / 1e6,
                    summary)).build();
        } finally {
            probe.stopRecording();
        }
    }

    /**
     * Rows/s through the Java API: {@code threads} producers, each publishing one event per transaction
     * (or {@code batch} events with one {@code publishAll} per transaction) as fast as it can, counted for
     * {@code seconds} after {@code warmup} seconds. Payloads of about 200 bytes.
     */
    @POST
    @Path("enqueue")
    public Response enqueue(@QueryParam("app") String app, @QueryParam("threads") int threadCount,
            @QueryParam("seconds") int seconds, @QueryParam("warmup") @DefaultValue("1") int warmup,
            @QueryParam("batch") @DefaultValue("1") int batch)
            throws InterruptedException {
        AppId appId = AppId.parse(app);
        String payload = "{\"seq\": 1, \"pad\": \"" + "x".repeat(180) + "\"}";
        List<NewEvent> events = Collections.nCopies(batch, NewEvent.of(SourceKind.KV, payload));
        AtomicLong rows = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            started.add(threads.newThread(() -> {
                try {
                    long now;
                    while ((now = System.nanoTime()) < end && failure.get() == null) {
                        int written = batch > 1
                                ? producer.publishAll(appId, events)
                                : producer.publish(appId, payload, null);
                        if (now >= start) {
                            rows.addAndGet(written);
                        }
                    }
                } catch (Exception | Error e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        started.forEach(Thread::start);
        for (Thread t : started) {
            t.join();
        }
        if (failure.get() != null) {
            return error("publishing failed: " + failure.get());
        }
        return Response.ok(String.format(Locale.ROOT, "{\"rows\":%d,\"seconds\":%d}", rows.get(), seconds)).build();
    }

    private static Response error(String message) {
        return Response.serverError().entity("{\"error\":\"" + message.replace("\\", "\\\\").replace("\"", "'") + "\"}")
                .build();
    }
}
