package dev.triggeroutbox.faults;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Steady load through the REST API: events published for one app at a fixed rate (or as fast as the
 * producers go), spread round-robin over the nodes that are up, every acknowledged row written to the ledger.
 * Bounded in count and in time: it stops after {@code total} events or when stopped. Its rows are due at once,
 * or all at one later instant ({@link #dueAt}).
 */
final class Load implements AutoCloseable {

    private final Cluster cluster;
    private final Rest rest;
    private final Ledger ledger;
    private final UUID app;
    private final int rate;
    private final long total;
    private final AtomicLong next = new AtomicLong();
    private final ExecutorService producers;
    private final int threads;
    private volatile boolean stopped;
    private long startNanos;
    private Instant dueAt;

    /** {@code rate} events/s (0: as fast as the producers go), at most {@code total} events (0: until stopped). */
    Load(Cluster cluster, Rest rest, Ledger ledger, UUID app, int rate, long total, int threads) {
        this.cluster = cluster;
        this.rest = rest;
        this.ledger = ledger;
        this.app = app;
        this.rate = rate;
        this.total = total;
        this.threads = threads;
        this.producers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "producer");
            t.setDaemon(true);
            return t;
        });
    }

    /** Every event of this load is published with this {@code deliverAt}; set before {@link #start()}. */
    Load dueAt(Instant at) {
        dueAt = at;
        return this;
    }

    Load start() {
        startNanos = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            producers.execute(this::produce);
        }
        return this;
    }

    private void produce() {
        while (!stopped) {
            long n = next.getAndIncrement();
            if (total > 0 && n >= total) {
                return;
            }
            if (rate > 0) {
                long due = startNanos + n * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
            List<Node> up = cluster.up();
            while (up.isEmpty() && !stopped) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                up = cluster.up();
            }
            if (stopped) {
                return;
            }
            Node node = up.get((int) (n % up.size()));
            long sent = System.nanoTime();
            List<UUID> ids = rest.publish(node, app, "kv", "{\"seq\":" + n + "}", dueAt);
            if (ids == null) {
                ledger.unacknowledged();
            } else {
                ids.forEach(id -> ledger.acknowledged(id, app, sent));
            }
        }
    }

    /** Waits until {@code total} events were offered (or the timeout passed). */
    boolean awaitDone(long timeout, TimeUnit unit) throws InterruptedException {
        producers.shutdown();
        return producers.awaitTermination(timeout, unit);
    }

    long offered() {
        return Math.min(next.get(), total > 0 ? total : Long.MAX_VALUE);
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        producers.shutdown();
        if (!producers.awaitTermination(30, TimeUnit.SECONDS)) {
            producers.shutdownNow();
        }
    }
}
