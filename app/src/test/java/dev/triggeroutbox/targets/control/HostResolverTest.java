package dev.triggeroutbox.targets.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The resolver's cache and its lookups in flight, with a DNS of the test's own and a clock it moves. */
class HostResolverTest {

    private static final InetAddress ADDRESS = AddressRange.literal("93.184.216.34").orElseThrow();

    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    private final long[] now = {0};
    private final ExecutorService threads = Executors.newCachedThreadPool();

    /** Knows every name except those starting with "unknown". */
    private final WebhookAddressPolicy.Resolver dns = host -> {
        lookups.computeIfAbsent(host, h -> new AtomicInteger()).incrementAndGet();
        if (host.startsWith("unknown")) {
            throw new UnknownHostException(host);
        }
        return new InetAddress[] {ADDRESS};
    };

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private int lookupsOf(String host) {
        AtomicInteger n = lookups.get(host);
        return n == null ? 0 : n.get();
    }

    private HostResolver resolver(int maxHosts) {
        return new HostResolver(dns, Runnable::run, maxHosts, 30_000, 2_000, () -> now[0]);
    }

    @Test
    void keepsAnAnswerForItsTtl() throws Exception {
        HostResolver r = resolver(10);
        assertEquals(List.of(ADDRESS), List.of(r.resolve("a.example").get()));
        now[0] += TimeUnit.SECONDS.toNanos(29);
        r.resolve("a.example").get();
        assertEquals(1, lookupsOf("a.example"));
        now[0] += TimeUnit.SECONDS.toNanos(1);
        r.resolve("a.example").get();
        assertEquals(2, lookupsOf("a.example"), "an expired answer was used");
    }

    @Test
    void keepsAFailedLookupBriefly() {
        HostResolver r = resolver(10);
        ExecutionException e = assertThrows(ExecutionException.class, () -> r.resolve("unknown.example").get());
        assertInstanceOf(UnknownHostException.class, e.getCause());
        assertThrows(ExecutionException.class, () -> r.resolve("unknown.example").get());
        assertEquals(1, lookupsOf("unknown.example"));
        now[0] += TimeUnit.SECONDS.toNanos(2);
        assertThrows(ExecutionException.class, () -> r.resolve("unknown.example").get());
        assertEquals(2, lookupsOf("unknown.example"), "a failure was kept as long as an answer");
    }

    @Test
    void keepsAtMostItsBoundOfHostsDroppingTheLeastRecentlyUsed() throws Exception {
        HostResolver r = resolver(2);
        r.resolve("a.example").get();
        r.resolve("b.example").get();
        r.resolve("a.example").get(); // a is now the most recently used
        r.resolve("c.example").get();
        assertEquals(2, r.size());
        r.resolve("a.example").get();
        assertEquals(1, lookupsOf("a.example"), "the most recently used host was dropped");
        r.resolve("b.example").get();
        assertEquals(2, lookupsOf("b.example"), "the least recently used host was kept beyond the bound");
        for (int i = 0; i < 1_000; i++) {
            r.resolve("host" + i + ".example").get();
        }
        assertEquals(2, r.size());
    }

    @Test
    void waitersOfOneHostShareItsLookupWhileAnotherHostIsAnsweredAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger slowLookups = new AtomicInteger();
        WebhookAddressPolicy.Resolver hanging = host -> {
            if (host.equals("slow.example")) {
                slowLookups.incrementAndGet();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new InetAddress[] {ADDRESS};
        };
        HostResolver r = new HostResolver(hanging, threads, 10, 30_000, 2_000, System::nanoTime);
        try {
            CompletableFuture<InetAddress[]> first = r.resolve("slow.example");
            CompletableFuture<InetAddress[]> second = r.resolve("slow.example");
            assertSame(first, second, "a second lookup of the same host was started");

            assertEquals(ADDRESS, r.resolve("fast.example").get(5, TimeUnit.SECONDS)[0]);
            assertFalse(first.isDone());
        } finally {
            release.countDown();
        }
        assertEquals(ADDRESS, r.resolve("slow.example").get(5, TimeUnit.SECONDS)[0]);
        assertEquals(1, slowLookups.get());
        assertTrue(r.size() <= 2);
    }
}
