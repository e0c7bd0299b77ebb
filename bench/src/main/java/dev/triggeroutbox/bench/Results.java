package dev.triggeroutbox.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one run measured, part by part; a part that did not run stays null. */
final class Results {

    /** {@code count} things (rows, requests, transactions) in {@code seconds}. */
    record Throughput(String label, long count, double seconds) {
        double perSecond() {
            return seconds <= 0 ? 0 : count / seconds;
        }
    }

    /** {@code oursBatches}: finishing transactions drain (a) took, so rows / batches is its real batch size. */
    /** {@code keyed}: (a) with its rows in {@code keys} ordered lanes. */
    record Drain(int rows, Throughput ours, long oursBatches, Throughput dbScheduler, Throughput rawFloor, int keys,
            Throughput keyed) {
        double oursToFloor() {
            return ours.perSecond() / rawFloor.perSecond();
        }

        double oursToDbScheduler() {
            return ours.perSecond() / dbScheduler.perSecond();
        }
    }

    /**
     * {@code rest}: the JDK client, one request per event; {@code restWrk}: wrk over {@code wrkConnections};
     * {@code restBatch} and {@code javaBatch}: rows/s of batches of {@code batchEvents} events.
     */
    record Enqueue(int clients, Throughput rest, int wrkConnections, Throughput restWrk, int batchEvents,
            Throughput restBatch,
            Throughput javaApi, Throughput javaBatch, Throughput floor, PgBench.Ceiling ceiling) {
        /** Issue 14's target for the Java API's single publish, as a share of the floor. */
        static final double JAVA_API_TARGET = 0.6;

        double toFloor(Throughput t) {
            return t == null ? Double.NaN : t.perSecond() / floor.perSecond();
        }
    }

    /**
     * One half of a round of part "notify": the producer paths that pay the NOTIFY at every commit, and the floor of
     * the same moment, with {@code outbox.dispatch.notify} as {@code notifyOn} says. {@code rest} is wrk's when wrk is
     * installed, else the JDK clients'.
     */
    record NotifyHalf(int round, boolean notifyOn, Throughput rest, Throughput javaApi, Throughput floor) {
    }

    /** Latencies in milliseconds, commit → delivery start. */
    record LoadPoint(boolean wakeOnCommit, int offered, int sent, double sendSeconds, double worstLagMs,
            double p50, double p95, double p99, double max, int negative) {
        double achieved() {
            return sent / sendSeconds;
        }
    }

    record Latency(int pollMillis, List<LoadPoint> points) {
        LoadPoint at(boolean wake, int offered) {
            return points.stream().filter(p -> p.wakeOnCommit() == wake && p.offered() == offered).findFirst()
                    .orElse(null);
        }
    }

    record ClaimTiming(long dueRows, int runs, double medianMs, double minMs, double maxMs, String plan) {
    }

    record Backlog(int batchSize, ClaimTiming small, ClaimTiming large) {
        double ratio() {
            return large.medianMs() / small.medianMs();
        }
    }

    record Bloat(int holdSeconds, Throughput baseline, Throughput held, Throughput heldLast, Throughput after,
            long deadTuplesAtEndOfHold) {
    }

    /** One HTTP client stack of part "clients": its throughput, this JVM's CPU per request, threads it started. */
    record ClientRun(String name, Throughput requests, double cpuMicrosPerRequest, long threadsStarted) {
    }

    record Clients(int concurrency, int nginxWorkers, Throughput wrk, List<ClientRun> runs) {
    }

    /**
     * The webhook drain beside the no-op drain of the same run and the HTTP floor: wrk with as many
     * connections as the server opened ({@code connections}). Both drains are the last of {@code rounds}
     * measured in turn; the CPU figures are the server JVM's CPU time per row delivered.
     */
    record Webhook(int rows, int rounds, Throughput webhook, Throughput noop, double webhookCpuMicros,
            double noopCpuMicros, long connections, Throughput floor) {
        double toNoop() {
            return webhook.perSecond() / noop.perSecond();
        }

        double toFloor() {
            return webhook.perSecond() / floor.perSecond();
        }
    }

    /**
     * The Kafka drain (rows through the WAR to one local broker, {@code cpuMicros} the server's CPU per row) beside
     * Kafka's own producer performance tool sending as many records of the payload's size to the same broker.
     */
    record Kafka(int rows, Throughput drain, double cpuMicros, Throughput tool) {
        double toTool() {
            return drain.perSecond() / tool.perSecond();
        }
    }

    Clients clients;
    Webhook webhook;
    Kafka kafka;
    Drain drain;
    Enqueue enqueue;
    List<NotifyHalf> notifyCost;
    Latency latency;
    Backlog backlog;
    Bloat bloat;
    final Map<String, String> environment = new LinkedHashMap<>();
    final List<String> notes = new ArrayList<>();
}
