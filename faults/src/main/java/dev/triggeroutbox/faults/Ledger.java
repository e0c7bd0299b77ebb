package dev.triggeroutbox.faults;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every acknowledged enqueue: the row ids a node answered 2xx with, and when the request was sent. Requests
 * that got no acknowledgement (refused, failed, timed out) are only counted: whether their row exists is
 * unknown to a client, so nothing is promised about them.
 */
final class Ledger {

    record Entry(UUID app, long sentNanos) {
    }

    private final Map<UUID, Entry> rows = new ConcurrentHashMap<>();
    private final AtomicLong unacknowledged = new AtomicLong();

    void acknowledged(UUID row, UUID app, long sentNanos) {
        rows.put(row, new Entry(app, sentNanos));
    }

    void unacknowledged() {
        unacknowledged.incrementAndGet();
    }

    Set<UUID> ids() {
        return rows.keySet();
    }

    Entry entry(UUID id) {
        return rows.get(id);
    }

    int size() {
        return rows.size();
    }

    long unacknowledgedCount() {
        return unacknowledged.get();
    }
}
