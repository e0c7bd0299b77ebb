package dev.triggeroutbox.targets.control;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * How many webhook exchanges may be in flight to one origin (scheme, host, port) on this node; the others wait
 * here, in claim order, and each one starts when an exchange to its origin ends. Each origin starts at
 * {@code perOrigin} places; every answer within {@link #FAST_NANOS} gives it one more, up to {@code most}, every
 * slower one takes one back, and every failure (no answer in time, an error status, no connection) halves them,
 * never below {@code perOrigin}. So a receiver that answers at once
 * gets as many connections as the drain can use, and a backlog for a slow receiver opens {@code perOrigin}
 * connections instead of one per row: that burst of connects, and of the requests on them, cost the node's CPU
 * ahead of every other app's deliveries (fault scenario 9: another app's rows waited 4.5–5.5 s; docs/GUARANTEES.md).
 * A wait here spends none of the delivery's time: its exchange timeout starts when it starts. A delivery still
 * waiting at its deadline is given back unstarted (no attempt spent), and the claim passes over the triggers of
 * an origin that has deliveries waiting ({@link #rooms()}), so rows of a slow origin stay in the outbox instead of
 * queueing here.
 * <p>
 * A plain class with its clock passed in, so that unit tests drive it; thread-safe (one lock, never held while
 * an exchange starts or a delivery is given back).
 */
final class OriginGate {

    /** One delivery waiting for, or holding, a place at its origin. */
    final class Entry {
        private final String origin;
        private final UUID trigger;
        private final long deadline;
        private final Runnable start;
        private final Runnable expire;
        private boolean queued;
        private boolean started;
        private long startedAt;

        private Entry(String origin, UUID trigger, long deadline, Runnable start, Runnable expire) {
            this.origin = origin;
            this.trigger = trigger;
            this.deadline = deadline;
            this.start = start;
            this.expire = expire;
        }

        boolean overdue(long now) {
            return now - deadline > 0;
        }

        /** Whether it got its place (then {@link #ended(Entry, boolean)} must follow once). */
        boolean started() {
            synchronized (OriginGate.this) {
                return started;
            }
        }

        /** Takes a waiting delivery out of the line (the dispatcher gave up on it); does nothing once started. */
        void cancel() {
            synchronized (OriginGate.this) {
                if (!queued) {
                    return;
                }
                Line line = lines.get(origin);
                line.waiting.remove(this);
                line.leave(this);
                line.dropIfIdle();
            }
        }
    }

    /** One origin's exchanges in flight and deliveries waiting, and the triggers they belong to. */
    private final class Line {
        final String origin;
        int running;
        /** Places now: from {@code perOrigin} up to {@code most}, one more per fast answer, one less per slow one. */
        int places = perOrigin;
        final ArrayDeque<Entry> waiting = new ArrayDeque<>();
        /** Deliveries per trigger, running or waiting. */
        final Map<UUID, Integer> triggers = new HashMap<>();

        Line(String origin) {
            this.origin = origin;
        }

        void more(UUID trigger) {
            if (trigger != null) {
                triggers.merge(trigger, 1, Integer::sum);
            }
        }

        void less(UUID trigger) {
            if (trigger != null) {
                triggers.computeIfPresent(trigger, (t, n) -> n <= 1 ? null : n - 1);
            }
        }

        /** {@code e} takes a place now. */
        void take(Entry e, long now) {
            running++;
            e.started = true;
            e.startedAt = now;
        }

        /** {@code e}, out of the waiting list already, leaves the line without a place (cancelled or given back). */
        void leave(Entry e) {
            e.queued = false;
            less(e.trigger);
        }

        /** Nothing in flight, nothing waiting, nothing learned: forgotten (an origin with more places keeps them). */
        boolean idle() {
            return running == 0 && waiting.isEmpty() && places == perOrigin;
        }

        void dropIfIdle() {
            if (idle()) {
                lines.remove(origin);
            }
        }
    }

    /** An answer within this is fast: its origin gets one place more. */
    static final long FAST_NANOS = 250_000_000L;

    private final int perOrigin;
    private final int most;
    private final LongSupplier nanoTime;
    private final Map<String, Line> lines = new HashMap<>();

    OriginGate(int perOrigin, int most, LongSupplier nanoTime) {
        if (perOrigin < 1 || most < perOrigin) {
            throw new IllegalArgumentException("at least one exchange per origin, and at most no fewer");
        }
        this.perOrigin = perOrigin;
        this.most = most;
        this.nanoTime = nanoTime;
    }

    /** The places an origin starts with and never goes below. */
    int perOrigin() {
        return perOrigin;
    }

    /**
     * Runs {@code start} now (on this thread) when {@code origin} has a free place, else queues it; a queued
     * one that cannot start by {@code deadline} (nanoTime) gets {@code expire} instead. Every started one must
     * be followed by exactly one {@link #ended(Entry, boolean)}.
     */
    Entry enter(String origin, UUID trigger, long deadline, Runnable start, Runnable expire) {
        Entry entry = new Entry(origin, trigger, deadline, start, expire);
        boolean now;
        synchronized (this) {
            Line line = lines.computeIfAbsent(origin, Line::new);
            line.more(trigger);
            now = line.waiting.isEmpty() && line.running < line.places;
            if (now) {
                line.take(entry, nanoTime.getAsLong());
            } else {
                entry.queued = true;
                line.waiting.add(entry);
            }
        }
        if (now) {
            start.run();
        }
        return entry;
    }

    /**
     * A started exchange ended, delivered ({@code answered}) or not: its origin gains a place if the answer came
     * fast, loses one if it came slowly, loses half if it failed; the next deliveries waiting for it start (those past
     * their deadline expire).
     */
    void ended(Entry entry, boolean answered) {
        List<Entry> expired = new ArrayList<>();
        List<Entry> starting = new ArrayList<>();
        synchronized (this) {
            Line line = lines.get(entry.origin);
            line.running--;
            boolean fast = answered && nanoTime.getAsLong() - entry.startedAt <= FAST_NANOS;
            // more while it answers fast; one fewer per slow answer; half as many when it did not answer well at all:
            // a receiver that times out under the load it is given gets much less of it at once (as TCP backs off)
            line.places = fast
                    ? Math.min(most, line.places + 1)
                    : answered ? Math.max(perOrigin, line.places - 1) : Math.max(perOrigin, line.places / 2);
            line.less(entry.trigger);
            next(line, expired, starting);
            line.dropIfIdle();
        }
        run(expired, starting);
    }

    /** Gives back every waiting delivery past its deadline; for a line whose exchanges all hang. How many. */
    int expireOverdue() {
        List<Entry> expired = new ArrayList<>();
        long now = nanoTime.getAsLong();
        synchronized (this) {
            for (Iterator<Line> lit = lines.values().iterator(); lit.hasNext();) {
                Line line = lit.next();
                for (Iterator<Entry> it = line.waiting.iterator(); it.hasNext();) {
                    Entry e = it.next();
                    if (e.overdue(now)) {
                        it.remove();
                        line.leave(e);
                        expired.add(e);
                    }
                }
                if (line.idle()) {
                    lit.remove();
                }
            }
        }
        run(expired, List.of());
        return expired.size();
    }

    /** Gives back every waiting delivery (the node is stopping); the running ones go on. How many. */
    int expireAll() {
        List<Entry> expired = new ArrayList<>();
        synchronized (this) {
            for (Line line : lines.values()) {
                for (Entry e : line.waiting) {
                    line.leave(e);
                    expired.add(e);
                }
                line.waiting.clear();
            }
            lines.values().removeIf(Line::idle);
        }
        run(expired, List.of());
        return expired.size();
    }

    /** Whether any delivery waits, at any origin. */
    synchronized boolean anyWaiting() {
        for (Line line : lines.values()) {
            if (!line.waiting.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The room each trigger with deliveries here has left at its origin: 0 while the origin has deliveries
     * waiting, else the origin's free places. The claim takes no more rows of a trigger than its room.
     */
    synchronized Map<UUID, Integer> rooms() {
        Map<UUID, Integer> rooms = new HashMap<>();
        for (Line line : lines.values()) {
            int room = line.waiting.isEmpty() ? Math.max(0, line.places - line.running) : 0;
            for (UUID trigger : line.triggers.keySet()) {
                rooms.merge(trigger, room, Math::min);
            }
        }
        return rooms;
    }

    private void next(Line line, List<Entry> expired, List<Entry> starting) {
        long now = nanoTime.getAsLong();
        while (!line.waiting.isEmpty() && line.running < line.places) {
            Entry e = line.waiting.poll();
            if (e.overdue(now)) {
                line.leave(e);
                expired.add(e);
            } else {
                e.queued = false;
                line.take(e, now);
                starting.add(e);
            }
        }
    }

    private static void run(List<Entry> expired, List<Entry> starting) {
        expired.forEach(e -> e.expire.run());
        starting.forEach(e -> e.start.run());
    }
}
