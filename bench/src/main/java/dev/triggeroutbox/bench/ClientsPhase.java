package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Progress;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Part "clients": the HTTP client stacks a webhook sender could use, side by side in this JVM against
 * the nginx receiver, each keeping the same number of signed POSTs in flight; requests/s and this
 * JVM's CPU per request, and wrk against the same receiver as the HTTP floor. Runs before the server
 * starts, so nothing else takes the cores.
 */
final class ClientsPhase {

    private ClientsPhase() {
    }

    static Results.Clients run(Settings s) throws Exception {
        int c = s.clientConcurrency();
        Progress.say("[clients] %d POSTs in flight per stack, %d s each after %d s warm-up; nginx with %d worker(s)",
                c, s.clientSeconds(), s.clientWarmupSeconds(), s.nginxWorkers());
        List<SignedPosts.Post> posts = SignedPosts.make(1_000);
        List<Results.ClientRun> runs = new ArrayList<>();
        Results.Throughput wrk;
        try (Nginx nginx = new Nginx(s.target(), s.nginxWorkers())) {
            nginx.start();
            URI uri = URI.create(nginx.url("/hook"));
            Wrk.run(s.target(), uri.toString(), posts.get(0), c, s.clientWarmupSeconds());
            wrk = Wrk.run(s.target(), uri.toString(), posts.get(0), c, s.clientSeconds());
            Progress.say("  wrk (the floor): %,.0f requests/s", wrk.perSecond());
            for (String stack : s.clientStacks()) {
                try (HttpStacks.Stack client = switch (stack) {
                    case "jdk" -> HttpStacks.jdk(4);
                    case "jetty" -> HttpStacks.jetty(c);
                    case "netty" -> HttpStacks.netty(c);
                    default -> HttpStacks.apache(c);
                }) {
                    Results.ClientRun run = measure(client, uri, posts, c, s.clientWarmupSeconds(), s.clientSeconds());
                    Progress.say("  %s: %,.0f requests/s, %.1f µs CPU per request, %,d threads started",
                            run.name(), run.requests().perSecond(), run.cpuMicrosPerRequest(), run.threadsStarted());
                    runs.add(run);
                }
            }
        }
        return new Results.Clients(c, s.nginxWorkers(), wrk, runs);
    }

    /** Keeps {@code inFlight} requests going for the warm-up, then counts completions and CPU for {@code seconds}. */
    private static Results.ClientRun measure(HttpStacks.Stack client, URI uri, List<SignedPosts.Post> posts,
            int inFlight,
            int warmupSeconds, int seconds) throws InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong done = new AtomicLong();
        AtomicLong next = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(inFlight);
        Runnable[] slot = new Runnable[1];
        slot[0] = () -> client.post(uri, posts.get((int) (next.getAndIncrement() % posts.size())))
                .whenComplete((status, e) -> {
                    if (e != null || status != 204) {
                        failure.compareAndSet(null, e != null ? e : new IllegalStateException("status " + status));
                        running.set(false);
                    }
                    done.incrementAndGet();
                    if (running.get()) {
                        slot[0].run();
                    } else {
                        stopped.countDown();
                    }
                });
        for (int i = 0; i < inFlight; i++) {
            slot[0].run();
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
                .getOperatingSystemMXBean();
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        long n0 = done.get();
        long cpu0 = os.getProcessCpuTime();
        long threads0 = threads.getTotalStartedThreadCount();
        long t0 = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        long n1 = done.get();
        long cpu1 = os.getProcessCpuTime();
        long t1 = System.nanoTime();
        long threads1 = threads.getTotalStartedThreadCount();
        running.set(false);
        if (!stopped.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(client.name() + ": requests in flight did not end within 30 s");
        }
        if (failure.get() != null) {
            throw new IllegalStateException(client.name() + " failed: " + failure.get(), failure.get());
        }
        long requests = n1 - n0;
        return new Results.ClientRun(client.name(), new Results.Throughput(client.name(), requests, (t1 - t0) / 1e9),
                (cpu1 - cpu0) / 1e3 / requests, threads1 - threads0);
    }
}
