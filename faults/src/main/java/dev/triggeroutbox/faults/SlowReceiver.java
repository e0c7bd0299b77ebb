package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * Scenario 9: app A's receiver is up but answers every request after 3 s, and A's burst of rows (written during
 * the warm-up with one {@code deliverAt}) comes due all at once; app B publishes a steady load to a receiver that
 * answers at once. While A's backlog lasts, B's end-to-end latency (publish sent → webhook received) has a p99
 * within twice its baseline p99 + 100 ms, B's invokes answer 200 within twice the slowest invoke before A's rows
 * were due + 100 ms (the same bar, at most {@link #INVOKE_TIMEOUT_MILLIS}), and in the end every acknowledged row
 * of both apps is delivered.
 */
final class SlowReceiver extends Scenario {

    /** A's receiver answers after this: within the webhook timeout, so A's rows succeed, slowly. */
    static final long SLOW_ANSWER_MILLIS = 3_000;

    /**
     * The longest an invoke may wait: below A's 3 s, so one whose row waits behind A's rows cannot make it in
     * time; a quiet cluster answers in tens of ms.
     */
    static final long INVOKE_TIMEOUT_MILLIS = 2_000;

    /**
     * A's events fan out to this many triggers of A (all to its one receiver): the burst takes a tenth of the
     * requests, so it is written in seconds even on a busy machine, well inside the warm-up.
     */
    static final int FAN_OUT = 10;

    static final int INVOKES = 20;

    /**
     * Invokes before A's rows are due: their slowest sets the bar of those during A's backlog; if these do not all
     * answer within {@link #INVOKE_TIMEOUT_MILLIS}, the bar says nothing.
     */
    static final int QUIET_INVOKES = 5;

    private static final long INVOKE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final Duration BACKLOG_DEADLINE = Duration.ofMinutes(3);

    SlowReceiver() {
        super(9, "a slow app does not slow another");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(INVOKES, r -> {
            Thread t = new Thread(r, "invoker");
            t.setDaemon(true);
            return t;
        });
        try (Receiver ra = Receiver.start(); Receiver rb = Receiver.start(); Receiver ri = Receiver.start()) {
            ra.delay(SLOW_ANSWER_MILLIS);
            check(h, v, ra, rb, ri, callers);
        } finally {
            callers.shutdownNow();
        }
    }

    private void check(Harness h, Verdict v, Receiver ra, Receiver rb, Receiver ri, ExecutorService callers)
            throws Exception {
        UUID a = app(number, 1);
        UUID b = app(number, 2);
        Settings s = h.settings;
        Node admin = h.cluster.anyUp();
        for (int i = 0; i < FAN_OUT; i++) {
            h.rest.webhookTrigger(admin, a, ra.url(), 10);
        }
        h.rest.webhookTrigger(admin, b, rb.url(), 10);
        // another source kind, so B's steady events do not fan out to it: its rows are the invokes' alone
        UUID invokable = h.rest.webhookTrigger(admin, b, "docs", ri.url(), 10);
        Map<Node, double[]> before = h.counters();
        Ledger ledger = new Ledger();
        List<Rest.Invoked> quiet = new ArrayList<>();
        long window = TimeUnit.SECONDS.toNanos(s.baselineSeconds());
        long start = System.nanoTime();
        long due = start + 2 * window;
        Instant dueAt = Instant.now().plusNanos(2 * window);
        long written;
        long baselineFrom;
        long timeout;
        Backlog backlog;
        try (Load lb = new Load(h.cluster, h.rest, ledger, b, s.rate(), 0, 4).start();
                Load la = new Load(h.cluster, h.rest, ledger, a, 0, s.burstRows() / FAN_OUT, 8).dueAt(dueAt).start()) {
            Progress.say("scenario 9: writing %,d rows of app A, due in %d s; app B at %d events/s", s.burstRows(),
                    2 * s.baselineSeconds(), s.rate());
            // warm-up as long as the baseline (a node fresh from boot is still compiling); A's rows are written in it,
            // or the baseline starts when they are
            boolean done = la.awaitDone(due - System.nanoTime(), TimeUnit.NANOSECONDS);
            written = System.nanoTime();
            v.require(done, "app A's rows were still being written when they came due");
            sleepUntil(start + window);
            for (int i = 0; i < QUIET_INVOKES; i++) {
                quiet.add(invoke(h, b, invokable, i, INVOKE_TIMEOUT_MILLIS));
            }
            baselineFrom = System.nanoTime();
            long slowest = quiet.stream().mapToLong(Rest.Invoked::millis).max().orElseThrow();
            timeout = Math.min(INVOKE_TIMEOUT_MILLIS, 2 * slowest + 100);
            sleepUntil(due);
            Progress.say("scenario 9: app A's rows due; its receiver answers after %d ms", SLOW_ANSWER_MILLIS);
            backlog = watch(h, a, due, n -> invoke(h, b, invokable, QUIET_INVOKES + n, timeout), callers, v);
            Progress.say("scenario 9: app A's backlog gone %.1f s after its rows were due", (backlog.end - due) / 1e9);
        }
        long loadEnd = System.nanoTime();
        List<Rest.Invoked> invoked = new ArrayList<>();
        for (Future<Rest.Invoked> f : backlog.invokes) {
            invoked.add(f.get(INVOKE_TIMEOUT_MILLIS + 10_000, TimeUnit.MILLISECONDS));
        }
        h.compare(ledger, Map.of(a, ra, b, rb), loadEnd, Duration.ofMinutes(3), v);
        h.countersSince(before, v);

        long burst = ledger.ids().stream().filter(id -> ledger.entry(id).app().equals(a)).count();
        Latencies normal = Latencies.of(ledger, rb, b, baselineFrom, due);
        Latencies slowed = Latencies.of(ledger, rb, b, due, backlog.end);
        double bar = 2 * normal.millis(0.99) + 100;
        v.figure("app A: %,d rows (%,d events × %d triggers) acknowledged in %.1f s of the warm-up, due at once; its "
                + "backlog lasted %.1f s after that, up to %,d of its rows in flight at once (the cluster's permits: "
                + "3 × 1,000)", burst, s.burstRows() / FAN_OUT, FAN_OUT, (written - start) / 1e9,
                (backlog.end - due) / 1e9, backlog.mostInFlight);
        v.figure(
                "app B p50 / p99 latency: baseline %.1f / %.1f ms (%,d rows, %.0f s), during A's backlog %.1f / %.1f ms "
                        + "(%,d rows, %.1f s); bar 2 × baseline p99 + 100 ms = %.1f ms",
                normal.millis(0.5), normal.millis(0.99),
                normal.count(), (due - baselineFrom) / 1e9, slowed.millis(0.5), slowed.millis(0.99), slowed.count(),
                (backlog.end - due) / 1e9, bar);
        v.figure("  app B's p99 by second of A's backlog (rows sent in it):%s",
                bySecond(ledger, rb, b, due, backlog.end));
        v.figure(
                "app B's invokes: before A's rows were due (timeoutMs %d) %s; during A's backlog (timeoutMs %d: 2 × the "
                        + "slowest before + 100, at most %d) %s",
                INVOKE_TIMEOUT_MILLIS, answers(quiet), timeout,
                INVOKE_TIMEOUT_MILLIS, answers(invoked));
        v.figure("  each during (sent after A's first claim, answer, ms):%s", invoked.stream()
                .map(i -> String.format(Locale.ROOT, " +%.1fs %d %d", (i.sentNanos() - backlog.firstClaim) / 1e9,
                        i.status(), i.millis()))
                .collect(Collectors.joining(" ·")));
        v.figure("rows delivered more than once: app A %d, app B %d; last errors of A's rows while its backlog lasted "
                + "(most rows at once): %s; A's receiver answered each request within %,d ms", twice(ra), twice(rb),
                backlog.errors.isEmpty() ? "none" : backlog.errors, ra.slowestAnswerMillis());

        v.require(burst == s.burstRows() / FAN_OUT * FAN_OUT, "only %,d of app A's %,d rows acknowledged", burst,
                s.burstRows());
        v.require(normal.count() >= 100 && slowed.count() >= 100, "too few of app B's rows for a p99 (%d baseline, %d "
                + "during)", normal.count(), slowed.count());
        v.requireTiming(slowed.millis(0.99) <= bar,
                "app B's p99 during A's backlog (%.1f ms) is over 2 × its baseline p99 + "
                        + "100 ms (%.1f ms)",
                slowed.millis(0.99), bar);
        v.requireTiming(quiet.stream().allMatch(i -> i.status() == 200),
                "app B's invokes before A's rows were due did not all "
                        + "answer 200 within %d ms: the bar during A's backlog says nothing",
                INVOKE_TIMEOUT_MILLIS);
        long late = invoked.stream().filter(i -> i.status() != 200).count();
        v.requireTiming(invoked.size() == INVOKES && late == 0,
                "%d of app B's %d invokes during A's backlog did not answer 200 "
                        + "within %d ms",
                late + INVOKES - invoked.size(), INVOKES, timeout);
        long after = invoked.stream().filter(i -> i.sentNanos() >= backlog.end).count();
        v.require(after == 0, "%d of app B's invokes were sent after A's backlog was gone", after);
        invokeRowsDelivered(quiet, invoked, ri, v);
    }

    /** " +0s 12.1 ms (95) · +1s …": where in A's backlog B's slow rows were sent, for the first 15 seconds. */
    private static String bySecond(Ledger ledger, Receiver rb, UUID b, long from, long to) {
        StringBuilder out = new StringBuilder();
        long second = TimeUnit.SECONDS.toNanos(1);
        for (int k = 0; k < 15 && from + k * second < to; k++) {
            Latencies l = Latencies.of(ledger, rb, b, from + k * second, Math.min(to, from + (k + 1) * second));
            out.append(String.format(Locale.ROOT, "%s +%ds %.1f ms (%d)", k == 0 ? "" : " ·", k, l.millis(0.99),
                    l.count()));
        }
        return out.toString();
    }

    private static long twice(Receiver r) {
        return r.hits().values().stream().filter(hit -> hit.count.get() > 1).count();
    }

    /**
     * A's backlog as watched: its first claim, its end (none of A's rows left), the most in flight at once, and the
     * last errors its rows carried (each error's start, the most rows seen with it at once).
     */
    private record Backlog(long firstClaim, long end, long mostInFlight, Map<String, Long> errors,
            List<Future<Rest.Invoked>> invokes) {
    }

    /**
     * Watches A's backlog from its rows' due time until none of them is left in the outbox (at most
     * {@link #BACKLOG_DEADLINE}); at A's first claim it starts B's invokes, one every 100 ms from then on.
     */
    private static Backlog watch(Harness h, UUID a, long due, IntFunction<Rest.Invoked> invoke, ExecutorService callers,
            Verdict v) throws Exception {
        List<Future<Rest.Invoked>> invokes = new ArrayList<>();
        long deadline = due + BACKLOG_DEADLINE.toNanos();
        long firstClaim = 0;
        long end = 0;
        long most = 0;
        Map<String, Long> errors = new TreeMap<>();
        long nextErrors = due;
        while (end == 0 && System.nanoTime() < deadline) {
            long left = h.outboxRows(List.of(a));
            long inFlight = h.count("SELECT count(claimed_by) FROM outbox WHERE app_id = ANY (?)", List.of(a));
            long now = System.nanoTime();
            most = Math.max(most, inFlight);
            if (firstClaim == 0 && inFlight > 0) {
                firstClaim = now;
                for (int i = 0; i < INVOKES; i++) {
                    int n = i;
                    long at = now + n * INVOKE_EVERY_NANOS;
                    invokes.add(callers.submit(() -> {
                        sleepUntil(at);
                        return invoke.apply(n);
                    }));
                }
            }
            if (left == 0) {
                end = now;
            }
            if (now >= nextErrors) {
                lastErrors(h, a).forEach((error, rows) -> errors.merge(error, rows, Math::max));
                nextErrors = now + TimeUnit.SECONDS.toNanos(1);
            }
            Thread.sleep(20);
        }
        if (end == 0) {
            end = System.nanoTime();
            v.fail("app A's backlog not delivered within %d s of its due time", BACKLOG_DEADLINE.toSeconds());
        }
        return new Backlog(firstClaim, end, most, errors, invokes);
    }

    /** The rows of {@code app} waiting for a retry now, by the start of their last error. */
    private static Map<String, Long> lastErrors(Harness h, UUID app) throws SQLException {
        Map<String, Long> errors = new TreeMap<>();
        try (Connection con = h.db.connect(); PreparedStatement ps = con.prepareStatement("""
                SELECT left(last_error, 60), count(*) FROM outbox
                WHERE app_id = ? AND last_error IS NOT NULL
                GROUP BY 1""")) {
            ps.setObject(1, app);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    errors.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return errors;
    }

    /** Every invoke that wrote a row (whatever it answered) reached its receiver in the end; duplicates counted. */
    private static void invokeRowsDelivered(List<Rest.Invoked> quiet, List<Rest.Invoked> invoked, Receiver ri,
            Verdict v) {
        List<UUID> rows = new ArrayList<>();
        for (List<Rest.Invoked> list : List.of(quiet, invoked)) {
            list.stream().map(Rest.Invoked::row).filter(r -> r != null).forEach(rows::add);
        }
        long missing = rows.stream().filter(id -> ri.hit(id) == null).count();
        v.figure("invoke rows: %d written, %d delivered, %d of them more than once", rows.size(), rows.size() - missing,
                twice(ri));
        v.require(missing == 0, "%d invoke row(s) of app B never delivered", missing);
    }

    private static Rest.Invoked invoke(Harness h, UUID app, UUID trigger, int n, long timeout) {
        Node node = h.cluster.nodes.get(n % h.cluster.nodes.size());
        return h.rest.invoke(node, app, trigger, "{\"invoke\":" + n + "}", timeout);
    }

    /** "18 × 200, 2 × 202 in 12–2,004 ms (median 31)"; status 0 is no answer. */
    private static String answers(List<Rest.Invoked> invokes) {
        if (invokes.isEmpty()) {
            return "none";
        }
        Map<Integer, Long> byStatus = invokes.stream()
                .collect(Collectors.groupingBy(Rest.Invoked::status, TreeMap::new, Collectors.counting()));
        long[] ms = invokes.stream().mapToLong(Rest.Invoked::millis).sorted().toArray();
        return byStatus.entrySet().stream()
                .map(e -> e.getValue() + " × " + (e.getKey() == 0 ? "no answer" : e.getKey()))
                .collect(Collectors.joining(", "))
                + String.format(Locale.ROOT, " in %,d–%,d ms (median %,d)", ms[0], ms[ms.length - 1],
                        ms[ms.length / 2]);
    }

    private static void sleepUntil(long nanos) {
        for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
