package dev.triggeroutbox.faults;

import java.util.UUID;

/**
 * End-to-end latencies of one app's rows (publish sent → first delivery received) for the rows sent in a window,
 * sorted; quantiles by nearest rank. Rows not delivered are left out: the ledger comparison counts those.
 */
final class Latencies {

    private final long[] nanos;

    private Latencies(long[] nanos) {
        this.nanos = nanos;
    }

    /** The rows of {@code app} in the ledger sent from {@code from} (inclusive) to {@code to} (exclusive). */
    static Latencies of(Ledger ledger, Receiver receiver, UUID app, long from, long to) {
        return new Latencies(ledger.ids().stream().mapToLong(id -> {
            Ledger.Entry e = ledger.entry(id);
            Receiver.Hit hit = receiver.hit(id);
            boolean counted = e.app().equals(app) && hit != null && e.sentNanos() >= from && e.sentNanos() < to;
            return counted ? hit.firstNanos - e.sentNanos() : -1;
        }).filter(n -> n >= 0).sorted().toArray());
    }

    int count() {
        return nanos.length;
    }

    /** The {@code q} quantile (0 < q ≤ 1) in ms; NaN when no row was sent in the window. */
    double millis(double q) {
        return nanos.length == 0 ? Double.NaN : nanos[(int) Math.ceil(nanos.length * q) - 1] / 1e6;
    }
}
