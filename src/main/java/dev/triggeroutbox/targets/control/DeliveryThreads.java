package dev.triggeroutbox.targets.control;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The threads that run deliveries which block (handlers, JMS sends): {@code outbox.delivery.threads}
 * of them, made by the server's managed thread factory (so they carry this application's naming and
 * class loader), idle ones ending after a minute. Not the server's default managed executor: WildFly
 * sizes that to twice the processors (4 threads on 2 cores, one of them busy with the drain loop) and
 * Payara to one thread, so a handler that waits on I/O would hold back every other delivery; and it
 * captures and restores a context around every task, which a delivery does not need.
 */
@ApplicationScoped
public class DeliveryThreads {

    @Inject
    @ConfigProperty(name = "outbox.delivery.threads", defaultValue = "32")
    int threads;

    @Resource
    ManagedThreadFactory threadFactory;

    private ThreadPoolExecutor pool;

    @PostConstruct
    void open() {
        if (threads < 1) {
            throw new IllegalStateException("outbox.delivery.threads must be at least 1");
        }
        pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory);
        pool.allowCoreThreadTimeOut(true);
    }

    @PreDestroy
    void close() {
        pool.shutdownNow(); // deliveries still running are interrupted; their rows come back after the lease
    }

    public ExecutorService executor() {
        return pool;
    }
}
