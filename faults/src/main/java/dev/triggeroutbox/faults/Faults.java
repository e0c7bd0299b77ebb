package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import dev.triggeroutbox.testkit.WarWithClasses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * docs/GUARANTEES.md: starts an embedded PostgreSQL and three WildFly nodes (separate
 * processes) with the WAR, runs the chosen fault scenarios one after the other, each comparing a ledger of
 * acknowledged enqueues with what its webhook receivers got, prints each verdict and a summary, writes them to
 * {@code faults/target/results.txt}, stops everything it started (also on failure and Ctrl-C), and exits
 * non-zero when any scenario failed.
 */
public final class Faults {

    private Faults() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        int status;
        try {
            status = run(Settings.fromSystemProperties()) ? 0 : 1;
        } catch (Throwable e) {
            System.err.println();
            System.err.println("FAULT HARNESS FAILED: " + e);
            e.printStackTrace();
            status = 2;
        }
        System.exit(status);
    }

    private static boolean run(Settings s) throws Exception {
        Progress.say("Trigger Outbox fault harness, %s run, scenarios %s (lease %d ms, poll %d ms)", s.mode(),
                s.scenarios(),
                s.leaseMillis(), s.pollMillis());
        Path war = WarWithClasses.build(s.productWar(), s.classes(), "dev/triggeroutbox/faults/server",
                s.target().resolve("trigger-outbox-faults.war"));
        Postgres[] db = new Postgres[1];
        Cluster[] cluster = new Cluster[1];
        Thread hook = new Thread(() -> stop(cluster[0], db[0]), "faults-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        List<Verdict> verdicts = new ArrayList<>();
        try {
            db[0] = Postgres.start(s.pgPort());
            Rest rest = new Rest();
            cluster[0] = new Cluster(s, db[0], rest, war);
            Progress.say("starting 3 WildFly nodes (HTTP %s)",
                    cluster[0].nodes.stream().map(n -> Integer.toString(n.httpPort)).toList());
            long t = System.nanoTime();
            cluster[0].start();
            Progress.say("3 nodes up in %.0f s", (System.nanoTime() - t) / 1e9);
            Harness h = new Harness(s, db[0], cluster[0], rest);
            for (int n : s.scenarios()) {
                Verdict v = run(h, db[0], cluster[0], n);
                if (v.missedOnlyTiming()) {
                    // nothing lost or duplicated, a latency bar missed: run once more, as the build does a failed test;
                    // the second run's verdict stands (a loss or a duplicate is never run again)
                    Progress.say("scenario %d missed a latency bar only: running it once more", n);
                    v = run(h, db[0], cluster[0], n);
                    v.figure("(run a second time: the first missed a latency bar only)");
                }
                verdicts.add(v);
            }
        } finally {
            stop(cluster[0], db[0]);
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        String summary = summary(s, verdicts);
        System.out.println();
        System.out.print(summary);
        Files.writeString(s.target().resolve("results.txt"), summary);
        return verdicts.stream().noneMatch(v -> !v.passed() && !v.skipped);
    }

    private static Verdict run(Harness h, Postgres db, Cluster cluster, int n) throws Exception {
        Scenario scenario = Scenario.of(n);
        Verdict v = new Verdict(n, scenario.title);
        Progress.say("scenario %d: %s", n, scenario.title);
        h.forget(List.of(Scenario.app(n, 1), Scenario.app(n, 2)));
        try (Retries retries = Retries.watch(db)) {
            h.retries = retries;
            scenario.run(h, v);
        } catch (Exception e) {
            v.fail("the scenario broke off: %s", e);
            e.printStackTrace();
        }
        System.out.print(v.report());
        cluster.awaitAllUp(Cluster.START_TIMEOUT);
        return v;
    }

    private static String summary(Settings s, List<Verdict> verdicts) {
        StringBuilder b = new StringBuilder();
        b.append(
                String.format(Locale.ROOT, "Fault scenarios, %s run, %s, %d cores, lease %d ms, poll %d ms%n", s.mode(),
                        ZonedDateTime.now().withNano(0), Runtime.getRuntime().availableProcessors(), s.leaseMillis(),
                        s.pollMillis()));
        b.append(String.format(Locale.ROOT, "%-3s %-58s %9s %9s %5s %5s %6s %8s  %s%n", "#", "scenario", "sent",
                "delivered",
                "lost", "dup", "fenced", "drain s", "result"));
        for (Verdict v : verdicts) {
            b.append(String.format(Locale.ROOT, "%-3d %-58s %9d %9d %5d %5d %6d %8s  %s%n", v.scenario, v.title, v.sent,
                    v.delivered, v.lost.size(), v.duplicates.size(), v.fenced,
                    v.drainMillis == null ? "-" : String.format(Locale.ROOT, "%.1f", v.drainMillis / 1000.0),
                    v.outcome()));
        }
        for (Verdict v : verdicts) {
            b.append('\n').append(v.report());
        }
        long failed = verdicts.stream().filter(v -> !v.passed() && !v.skipped).count();
        long skipped = verdicts.stream().filter(v -> v.skipped).count();
        b.append(String.format(Locale.ROOT, "%nfaults: %d passed, %d failed%s%n", verdicts.size() - failed - skipped,
                failed,
                skipped == 0 ? "" : ", " + skipped + " skipped"));
        return b.toString();
    }

    private static void stop(Cluster cluster, Postgres db) {
        if (cluster != null) {
            Progress.say("stopping the nodes");
            cluster.close();
        }
        if (db != null) {
            Progress.say("stopping PostgreSQL");
            db.close();
        }
    }
}
