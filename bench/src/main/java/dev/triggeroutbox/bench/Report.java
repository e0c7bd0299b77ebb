package dev.triggeroutbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Writes the results as Markdown (also printed at the end of the run) and CSV. */
final class Report {

    private Report() {
    }

    static String markdown(Results r, Settings s) {
        StringBuilder md = new StringBuilder();
        md.append("# Trigger Outbox benchmark (").append(s.mode()).append(" run)\n\n");
        md.append("| | |\n|---|---|\n");
        r.environment.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        md.append('\n');
        if (r.drain != null) {
            Results.Drain d = r.drain;
            md.append(f("## 1. Drain: %,d rows already due, no-op handler\n\n", d.rows()));
            md.append("| | rows | seconds | rows/s | vs (c) |\n|---|---:|---:|---:|---:|\n");
            drainRow(md,
                    "(a) Trigger Outbox: the WAR's dispatcher on WildFly (batch " + s.batchSize() + ", concurrency "
                            + s.concurrency() + ", history kept)",
                    d.ours(), d.rawFloor());
            if (d.keyed() != null) {
                drainRow(md,
                        f("(a') the same, its rows in %,d ordered lanes (orderingKey; one row of a lane at a time)",
                                d.keys()),
                        d.keyed(), d.rawFloor());
            }
            drainRow(md, "(b) db-scheduler " + s.dbSchedulerVersion() + ": one-time tasks, lock-and-fetch, "
                    + s.workerThreads() + " threads", d.dbScheduler(), d.rawFloor());
            drainRow(md, "(c) raw SQL floor: one SKIP LOCKED claim + one DELETE per batch of " + s.batchSize()
                    + ", one connection", d.rawFloor(), d.rawFloor());
            md.append(f("\n(a)/(c) = **%.2f** (target ≥ 0.6) · (a)/(b) = **%.2f** (target ≥ 4)\n\n", d.oursToFloor(),
                    d.oursToDbScheduler()));
            md.append(f(
                    "(a) finished its rows in %,d transactions: %.1f rows per batch (batch-size %d; a claim takes no more "
                            + "rows than there are free delivery permits, of %d).\n\n",
                    d.oursBatches(), d.ours().count() / (double) d.oursBatches(),
                    s.batchSize(), s.concurrency()));
        }
        if (r.webhook != null) {
            Results.Webhook w = r.webhook;
            md.append(f("## 1b. Webhook drain: %,d rows already due, POSTed to nginx on 127.0.0.1\n\n", w.rows()));
            md.append(f(
                    "Of %d round(s), each a webhook drain then a no-op drain after a warm-up of both, the one with the median "
                            + "ratio among those after the first (the JIT's).\n\n",
                    w.rounds()));
            md.append("| | count | seconds | per second | server CPU µs per row |\n|---|---:|---:|---:|---:|\n");
            md.append(f("| %s | %,d | %.2f | %,.0f | %.1f |\n", w.webhook().label(), w.webhook().count(),
                    w.webhook().seconds(),
                    w.webhook().perSecond(), w.webhookCpuMicros()));
            md.append(f("| %s | %,d | %.2f | %,.0f | %.1f |\n", w.noop().label(), w.noop().count(), w.noop().seconds(),
                    w.noop().perSecond(), w.noopCpuMicros()));
            md.append(f("| %s | %,d | %.2f | %,.0f | |\n", w.floor().label(), w.floor().count(), w.floor().seconds(),
                    w.floor().perSecond()));
            md.append(f("\nwebhook / no-op = **%.2f** (target ≥ 0.7) · webhook / floor = **%.2f**; the server kept %,d "
                    + "connections open to the receiver (the floor's wrk used as many).\n\n", w.toNoop(), w.toFloor(),
                    w.connections()));
        }
        if (r.kafka != null) {
            Results.Kafka k = r.kafka;
            md.append(f("## 1c. Kafka drain: %,d rows already due, sent to one local broker (KRaft)\n\n", k.rows()));
            md.append("| | count | seconds | per second | server CPU µs per row |\n|---|---:|---:|---:|---:|\n");
            md.append(
                    f("| %s | %,d | %.2f | %,.0f | %.1f |\n", k.drain().label(), k.drain().count(), k.drain().seconds(),
                            k.drain().perSecond(), k.cpuMicros()));
            md.append(f("| %s | %,d | %.2f | %,.0f | |\n", k.tool().label(), k.tool().count(), k.tool().seconds(),
                    k.tool().perSecond()));
            md.append(f("\nKafka drain / producer tool = **%.2f**\n\n", k.toTool()));
        }
        if (r.clients != null) {
            Results.Clients c = r.clients;
            md.append(f("## 0. HTTP clients: %d signed POSTs in flight to nginx (%d worker(s)), `return 204`\n\n",
                    c.concurrency(), c.nginxWorkers()));
            md.append(
                    "| stack | requests/s | CPU µs per request (this JVM) | threads started | vs wrk |\n|---|---:|---:|---:|---:|\n");
            for (Results.ClientRun run : c.runs()) {
                md.append(f("| %s | %,.0f | %.1f | %,d | %.2f |\n", run.name(), run.requests().perSecond(),
                        run.cpuMicrosPerRequest(), run.threadsStarted(),
                        run.requests().perSecond() / c.wrk().perSecond()));
            }
            md.append(f("| wrk, 1 thread, %d connections (the floor) | %,.0f | | | 1.00 |\n\n", c.concurrency(),
                    c.wrk().perSecond()));
        }
        if (r.enqueue != null) {
            Results.Enqueue e = r.enqueue;
            md.append(f("## 2. Enqueue: %d concurrent clients\n\n", e.clients()));
            md.append("| path | per second | vs floor |\n|---|---:|---:|\n");
            md.append(f(
                    "| REST `POST /apps/{app}/events`, %d keep-alive HTTP/1.1 JDK clients (requests/s, 1 row each) | %,.0f | %.2f |\n",
                    e.clients(), e.rest().perSecond(), e.toFloor(e.rest())));
            if (e.restWrk() != null) {
                md.append(f(
                        "| REST `POST /apps/{app}/events`, wrk, 1 thread, %d connections (requests/s, 1 row each) | %,.0f | %.2f |\n",
                        e.wrkConnections(), e.restWrk().perSecond(), e.toFloor(e.restWrk())));
            }
            md.append(f(
                    "| REST `POST /apps/{app}/events:batch`, %d JDK clients, %,d events per batch (rows/s) | %,.0f | %.2f |\n",
                    e.clients(), e.batchEvents(), e.restBatch().perSecond(), e.toFloor(e.restBatch())));
            md.append(f(
                    "| Java API `Outbox.publish` in its own JTA transaction, %d threads in the server (rows/s) | %,.0f | %.2f |\n",
                    e.clients(), e.javaApi().perSecond(), e.toFloor(e.javaApi())));
            md.append(f(
                    "| Java API `Outbox.publishAll` of %,d events per JTA transaction, %d threads (rows/s) | %,.0f | %.2f |\n",
                    e.batchEvents(), e.clients(), e.javaBatch().perSecond(), e.toFloor(e.javaBatch())));
            md.append(f(
                    "| single-row `INSERT` transactions on `outbox`, %d JDBC connections (the floor) | %,.0f | 1.00 |\n",
                    e.clients(), e.floor().perSecond()));
            if (e.ceiling() != null) {
                PgBench.Ceiling c = e.ceiling();
                md.append(f(
                        "| PostgreSQL alone: the same single-row `INSERT`, pgbench, %d connections (tx/s) | %,.0f | %.2f |\n",
                        e.clients(), c.single().perSecond(), e.toFloor(c.single())));
                md.append(f("| PostgreSQL alone: the Java API's transaction (`BEGIN` + fan-out `INSERT … SELECT`, "
                        + "then `COMMIT`), pgbench (tx/s): the Java API's ceiling | %,.0f | %.2f |\n",
                        c.transaction().perSecond(), e.toFloor(c.transaction())));
                md.append(f("\nAt %.1f of the floor, the server could spend %.0f µs of CPU per Java API transaction on "
                        + "these %d cores (what PostgreSQL took for it alone is subtracted).\n",
                        Results.Enqueue.JAVA_API_TARGET,
                        c.serverBudgetMicros(e.floor(), Results.Enqueue.JAVA_API_TARGET),
                        Runtime.getRuntime().availableProcessors()));
            }
            md.append('\n');
        }
        if (r.notifyCost != null) {
            md.append("## Notify: enqueue with `outbox.dispatch.notify` on and off\n\n");
            md.append(
                    "| round | notify | REST publish (requests/s) | vs floor | Java API `Outbox.publish`, 1 row/tx (rows/s) | vs floor | INSERT floor (tx/s) |\n");
            md.append("|---:|---|---:|---:|---:|---:|---:|\n");
            for (Results.NotifyHalf h : r.notifyCost) {
                md.append(f("| %d | %s | %,.0f | %.2f | %,.0f | %.2f | %,.0f |\n", h.round(),
                        h.notifyOn() ? "on" : "off",
                        h.rest().perSecond(), h.rest().perSecond() / h.floor().perSecond(), h.javaApi().perSecond(),
                        h.javaApi().perSecond() / h.floor().perSecond(), h.floor().perSecond()));
            }
            md.append('\n');
        }
        if (r.latency != null) {
            md.append(f("## 3. Latency: commit → delivery start (poll interval %d ms)\n\n", r.latency.pollMillis()));
            md.append("| wake-up on commit | offered /s | achieved /s | p50 ms | p95 ms | p99 ms | max ms |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (Results.LoadPoint p : r.latency.points()) {
                md.append(f("| %s | %,d | %,.0f | %.2f | %.2f | %.2f | %.2f |\n", p.wakeOnCommit() ? "on" : "off",
                        p.offered(), p.achieved(), p.p50(), p.p95(), p.p99(), p.max()));
            }
            md.append('\n');
        }
        if (r.backlog != null) {
            Results.Backlog b = r.backlog;
            md.append(f("## 4. Backlog: the claim statement (batch %d), median of %d runs, each rolled back\n\n",
                    b.batchSize(), b.small().runs()));
            md.append("| due rows | median ms | min ms | max ms |\n|---:|---:|---:|---:|\n");
            for (Results.ClaimTiming c : List.of(b.small(), b.large())) {
                md.append(f("| %,d | %.3f | %.3f | %.3f |\n", c.dueRows(), c.medianMs(), c.minMs(), c.maxMs()));
            }
            md.append(
                    f("\n%,d ÷ %,d = **%.2f** (target ≤ 2)\n\n", b.large().dueRows(), b.small().dueRows(), b.ratio()));
        }
        if (r.bloat != null) {
            Results.Bloat b = r.bloat;
            md.append(f("## 5. Bloat: drain throughput while a REPEATABLE READ snapshot is held for %d s\n\n",
                    b.holdSeconds()));
            md.append("| window | seconds | rows/s | vs baseline |\n|---|---:|---:|---:|\n");
            for (Results.Throughput t : List.of(b.baseline(), b.held(), b.heldLast(), b.after())) {
                md.append(f("| %s | %.0f | %,.0f | %.2f |\n", t.label(), t.seconds(), t.perSecond(),
                        t.perSecond() / b.baseline().perSecond()));
            }
            md.append(f("\nDead tuples in `outbox` at the end of the hold: %,d\n\n", b.deadTuplesAtEndOfHold()));
        }
        md.append("## Targets (issue 6; reported, never asserted)\n\n| target | measured | |\n|---|---:|---|\n");
        for (String[] t : targets(r, s)) {
            md.append("| ").append(String.join(" | ", t)).append(" |\n");
        }
        md.append('\n');
        if (!r.notes.isEmpty()) {
            md.append("## How it is measured\n\n");
            r.notes.forEach(n -> md.append("- ").append(n).append('\n'));
            md.append('\n');
        }
        if (r.backlog != null) {
            md.append("## Claim plans\n\n");
            for (Results.ClaimTiming c : List.of(r.backlog.small(), r.backlog.large())) {
                md.append(f("With %,d due rows (`EXPLAIN (ANALYZE, BUFFERS)`, rolled back):\n\n```\n%s```\n\n",
                        c.dueRows(), c.plan()));
            }
        }
        return md.toString();
    }

    private static void drainRow(StringBuilder md, String label, Results.Throughput t, Results.Throughput floor) {
        md.append(f("| %s | %,d | %.2f | %,.0f | %.2f |\n", label, t.count(), t.seconds(), t.perSecond(),
                t.perSecond() / floor.perSecond()));
    }

    private static List<String[]> targets(Results r, Settings s) {
        List<String[]> rows = new ArrayList<>();
        if (r.drain != null) {
            rows.add(target("drain (a) ≥ 0.6 × raw floor (c)", r.drain.oursToFloor(), "%.2f",
                    r.drain.oursToFloor() >= 0.6));
            rows.add(target("drain (a) ≥ 4 × db-scheduler (b)", r.drain.oursToDbScheduler(), "%.2f",
                    r.drain.oursToDbScheduler() >= 4));
        }
        if (r.webhook != null) {
            rows.add(target("webhook drain ≥ 0.7 × no-op drain (a)", r.webhook.toNoop(), "%.2f",
                    r.webhook.toNoop() >= 0.7));
        }
        if (r.enqueue != null) {
            Results.Enqueue e = r.enqueue;
            if (e.restWrk() != null) {
                double rest = e.toFloor(e.restWrk());
                rows.add(target("REST publish (wrk) ≥ 0.25 × single-insert floor", rest, "%.2f", rest >= 0.25));
            }
            double batch = e.toFloor(e.restBatch());
            rows.add(target("REST batch publish ≥ 3 × single-insert floor (rows/s)", batch, "%.2f", batch >= 3));
            double java = e.toFloor(e.javaApi());
            rows.add(target(f("Java API publish ≥ %.1f × single-insert floor", Results.Enqueue.JAVA_API_TARGET), java,
                    "%.2f", java >= Results.Enqueue.JAVA_API_TARGET));
        }
        if (r.latency != null) {
            Results.LoadPoint p = r.latency.at(true, 500);
            if (p != null) {
                rows.add(target("p99 commit → start ≤ 25 ms at 500 events/s (wake-up on)", p.p99(), "%.2f ms",
                        p.p99() <= 25));
            }
        }
        if (r.backlog != null) {
            rows.add(target(f("claim at %,d ÷ at %,d ≤ 2", r.backlog.large().dueRows(), r.backlog.small().dueRows()),
                    r.backlog.ratio(), "%.2f", r.backlog.ratio() <= 2));
        }
        if (r.bloat != null) {
            double ratio = r.bloat.held().perSecond() / r.bloat.baseline().perSecond();
            rows.add(target("held-snapshot throughput ≥ 0.6 × baseline", ratio, "%.2f", ratio >= 0.6));
        }
        return rows;
    }

    private static String[] target(String what, double value, String format, boolean met) {
        return new String[] {what, f(format, value), met ? "met" : "**missed**"};
    }

    static void writeCsv(Results r, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("section,metric,variant,value,unit");
        if (r.drain != null) {
            for (Results.Throughput t : java.util.stream.Stream
                    .of(r.drain.ours(), r.drain.keyed(), r.drain.dbScheduler(),
                            r.drain.rawFloor())
                    .filter(java.util.Objects::nonNull).toList()) {
                lines.add(csv("drain", "throughput", t.label(), t.perSecond(), "rows/s"));
                lines.add(csv("drain", "seconds", t.label(), t.seconds(), "s"));
            }
            lines.add(csv("drain", "rows per batch", "(a)", r.drain.ours().count() / (double) r.drain.oursBatches(),
                    "rows"));
            lines.add(csv("drain", "ratio", "(a)/(c)", r.drain.oursToFloor(), ""));
            lines.add(csv("drain", "ratio", "(a)/(b)", r.drain.oursToDbScheduler(), ""));
        }
        if (r.kafka != null) {
            for (Results.Throughput t : List.of(r.kafka.drain(), r.kafka.tool())) {
                lines.add(csv("kafka", "throughput", t.label(), t.perSecond(), "per s"));
            }
            lines.add(csv("kafka", "cpu", "kafka drain server CPU per row", r.kafka.cpuMicros(), "µs"));
            lines.add(csv("kafka", "ratio", "kafka drain/producer tool", r.kafka.toTool(), ""));
        }
        if (r.webhook != null) {
            for (Results.Throughput t : List.of(r.webhook.webhook(), r.webhook.noop(), r.webhook.floor())) {
                lines.add(csv("webhook", "throughput", t.label(), t.perSecond(), "per s"));
            }
            lines.add(csv("webhook", "cpu", "webhook server CPU per row", r.webhook.webhookCpuMicros(), "µs"));
            lines.add(csv("webhook", "cpu", "no-op server CPU per row", r.webhook.noopCpuMicros(), "µs"));
            lines.add(csv("webhook", "ratio", "webhook/no-op", r.webhook.toNoop(), ""));
            lines.add(csv("webhook", "ratio", "webhook/floor", r.webhook.toFloor(), ""));
        }
        if (r.clients != null) {
            for (Results.ClientRun run : r.clients.runs()) {
                lines.add(csv("clients", "throughput", run.name(), run.requests().perSecond(), "requests/s"));
                lines.add(csv("clients", "cpu per request", run.name(), run.cpuMicrosPerRequest(), "us"));
            }
            lines.add(csv("clients", "throughput", r.clients.wrk().label(), r.clients.wrk().perSecond(), "requests/s"));
        }
        if (r.enqueue != null) {
            lines.add(
                    csv("enqueue", "throughput", r.enqueue.rest().label(), r.enqueue.rest().perSecond(), "requests/s"));
            if (r.enqueue.restWrk() != null) {
                lines.add(csv("enqueue", "throughput", r.enqueue.restWrk().label(), r.enqueue.restWrk().perSecond(),
                        "requests/s"));
            }
            lines.add(csv("enqueue", "throughput", r.enqueue.restBatch().label(), r.enqueue.restBatch().perSecond(),
                    "rows/s"));
            lines.add(csv("enqueue", "throughput", r.enqueue.javaApi().label(), r.enqueue.javaApi().perSecond(),
                    "rows/s"));
            lines.add(csv("enqueue", "throughput", r.enqueue.javaBatch().label(), r.enqueue.javaBatch().perSecond(),
                    "rows/s"));
            lines.add(csv("enqueue", "throughput", r.enqueue.floor().label(), r.enqueue.floor().perSecond(),
                    "transactions/s"));
        }
        if (r.latency != null) {
            for (Results.LoadPoint p : r.latency.points()) {
                String v = (p.wakeOnCommit() ? "wake-on" : "wake-off") + " " + p.offered() + "/s";
                lines.add(csv("latency", "achieved", v, p.achieved(), "events/s"));
                lines.add(csv("latency", "p50", v, p.p50(), "ms"));
                lines.add(csv("latency", "p95", v, p.p95(), "ms"));
                lines.add(csv("latency", "p99", v, p.p99(), "ms"));
                lines.add(csv("latency", "max", v, p.max(), "ms"));
            }
        }
        if (r.backlog != null) {
            for (Results.ClaimTiming c : List.of(r.backlog.small(), r.backlog.large())) {
                lines.add(csv("backlog", "claim median", c.dueRows() + " due", c.medianMs(), "ms"));
            }
            lines.add(csv("backlog", "ratio", "large/small", r.backlog.ratio(), ""));
        }
        if (r.bloat != null) {
            for (Results.Throughput t : List.of(r.bloat.baseline(), r.bloat.held(), r.bloat.heldLast(),
                    r.bloat.after())) {
                lines.add(csv("bloat", "throughput", t.label(), t.perSecond(), "rows/s"));
            }
            lines.add(csv("bloat", "dead tuples", "end of hold", r.bloat.deadTuplesAtEndOfHold(), "rows"));
        }
        Files.write(file, lines);
    }

    private static String csv(String section, String metric, String variant, double value, String unit) {
        return String.join(",", quote(section), quote(metric), quote(variant), f("%.3f", value), quote(unit));
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
