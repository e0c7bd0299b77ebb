package dev.triggeroutbox.targets.control;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Resolves webhook host names on threads of its own, never on the server's shared executor or the HTTP
 * client's I/O threads: a lookup blocks (the JDK offers no other), and a slow name server must delay only
 * the origins it serves. Each host has at most one lookup in flight, whose answer all its waiters share;
 * answers are kept for {@code ttlMillis} (a failed lookup for {@code negativeTtlMillis}), at most
 * {@code maxHosts} of them, the least recently used going first (lookups still in flight are not
 * dropped, so the bound can be passed by as many hosts as are being looked up at that moment).
 */
final class HostResolver {

    private record Entry(CompletableFuture<InetAddress[]> answer, long expiresNanos) {
    }

    private final WebhookAddressPolicy.Resolver lookup;
    private final Executor threads;
    private final int maxHosts;
    private final long ttlNanos;
    private final long negativeTtlNanos;
    private final LongSupplier nanoTime;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);

    HostResolver(WebhookAddressPolicy.Resolver lookup, Executor threads, int maxHosts, long ttlMillis,
            long negativeTtlMillis, LongSupplier nanoTime) {
        if (maxHosts < 1) {
            throw new IllegalArgumentException("maxHosts must be at least 1");
        }
        this.lookup = lookup;
        this.threads = threads;
        this.maxHosts = maxHosts;
        this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        this.negativeTtlNanos = TimeUnit.MILLISECONDS.toNanos(negativeTtlMillis);
        this.nanoTime = nanoTime;
    }

    /**
     * The addresses of {@code host}: at once from the cache, else when its lookup ends (shared with every
     * caller asking meanwhile). Fails with {@link UnknownHostException} when the name does not resolve.
     */
    CompletableFuture<InetAddress[]> resolve(String host) {
        CompletableFuture<InetAddress[]> answer;
        synchronized (entries) {
            Entry e = entries.get(host);
            long now = nanoTime.getAsLong();
            if (e != null && (!e.answer().isDone() || now - e.expiresNanos() < 0)) {
                return e.answer();
            }
            answer = new CompletableFuture<>();
            entries.put(host, new Entry(answer, Long.MAX_VALUE)); // in flight: never expires, never evicted
            evictBeyondBound();
        }
        try {
            threads.execute(() -> look(host, answer));
        } catch (RejectedExecutionException e) {
            settle(host, answer, null, new UnknownHostException(host + ": no resolver thread accepted the lookup"));
        }
        return answer;
    }

    private void look(String host, CompletableFuture<InetAddress[]> answer) {
        try {
            InetAddress[] found = lookup.resolve(host);
            if (found == null || found.length == 0) {
                settle(host, answer, null, new UnknownHostException(host));
            } else {
                settle(host, answer, found, null);
            }
        } catch (UnknownHostException | RuntimeException e) {
            settle(host, answer, null,
                    e instanceof UnknownHostException ? e : new UnknownHostException(host + ": " + e));
        }
    }

    private void settle(String host, CompletableFuture<InetAddress[]> answer, InetAddress[] found, Exception failure) {
        synchronized (entries) {
            Entry e = entries.get(host);
            if (e != null && e.answer() == answer) {
                long ttl = found != null ? ttlNanos : negativeTtlNanos;
                entries.put(host, new Entry(answer, nanoTime.getAsLong() + ttl));
            }
        }
        if (found != null) {
            answer.complete(found);
        } else {
            answer.completeExceptionally(failure);
        }
    }

    /** Drops expired answers, then the least recently used ones, until at most {@code maxHosts} remain. */
    private void evictBeyondBound() {
        if (entries.size() <= maxHosts) {
            return;
        }
        long now = nanoTime.getAsLong();
        entries.values().removeIf(e -> e.answer().isDone() && now - e.expiresNanos() >= 0);
        Iterator<Map.Entry<String, Entry>> oldest = entries.entrySet().iterator();
        while (entries.size() > maxHosts && oldest.hasNext()) {
            if (oldest.next().getValue().answer().isDone()) {
                oldest.remove();
            }
        }
    }

    /** Hosts whose answer (or lookup in flight) is kept now. */
    int size() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
