package dev.triggeroutbox.faults;

/**
 * Scenario 7: the WAR redeployed on one node through the management API (as an operator rolling out a build
 * does) while load runs and the receiver answers each request after 1 s; requests to that node fail meanwhile
 * and are not acknowledged. The bar is {@link StopUnderLoad}'s: 0 lost, 0 duplicates, nothing left claimed.
 */
final class Redeploy extends StopUnderLoad {

    Redeploy() {
        super(7, "the WAR redeployed on one node under load", 1_000, 2);
    }

    @Override
    void stopAndStart(Harness h, Node node, Verdict v) throws Exception {
        long start = System.nanoTime();
        node.redeploy();
        v.figure("redeploy took %.1f s", (System.nanoTime() - start) / 1e9);
    }
}
