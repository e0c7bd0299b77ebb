package dev.triggeroutbox.bench.server;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the benchmark observes inside the server: how many deliveries the no-op handler has seen, and,
 * while a latency run records, when each of its rows was committed and when its delivery started.
 */
@ApplicationScoped
public class Probe {

    private final AtomicLong handled = new AtomicLong();
    private volatile LatencyRecord recording;

    void delivered(String payload) {
        handled.incrementAndGet();
        LatencyRecord r = recording;
        if (r != null) {
            r.started(payload);
        }
    }

    public long handled() {
        return handled.get();
    }

    public LatencyRecord record(int events) {
        LatencyRecord r = new LatencyRecord(events);
        recording = r;
        return r;
    }

    public void stopRecording() {
        recording = null;
    }
}
