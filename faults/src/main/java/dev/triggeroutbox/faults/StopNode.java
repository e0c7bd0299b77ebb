package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.time.Duration;

/**
 * Scenario 10: a node stopped with {@code SIGTERM} (as systemd or Kubernetes stop one) while it delivers to a
 * receiver that answers every request after 3 s, then started again; the load runs on through the other nodes.
 * The bar is {@link StopUnderLoad}'s (0 lost, 0 duplicates, nothing left claimed), and the JVM exits by itself.
 */
final class StopNode extends StopUnderLoad {

    static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    StopNode() {
        super(10, "SIGTERM to a node mid-delivery (receiver answering after 3 s)", 3_000, 1);
    }

    @Override
    void stopAndStart(Harness h, Node node, Verdict v) throws Exception {
        long start = System.nanoTime();
        boolean clean = node.terminate(STOP_TIMEOUT);
        double took = (System.nanoTime() - start) / 1e9;
        v.figure("%s stopped %s %.1f s after SIGTERM", node, clean ? "by itself" : "only when killed", took);
        v.require(clean, "%s did not stop within %d s of SIGTERM", node, STOP_TIMEOUT.toSeconds());
        Progress.say("scenario 10: %s stopped in %.1f s; starting it again", node, took);
        h.cluster.restart(node);
    }
}
