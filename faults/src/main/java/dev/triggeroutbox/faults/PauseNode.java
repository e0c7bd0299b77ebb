package dev.triggeroutbox.faults;

import dev.triggeroutbox.testkit.Progress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Scenario 3: {@code SIGSTOP} of a node for twice the lease while load runs (the receiver answers in 200 ms, so
 * the node has rows in flight), then {@code SIGCONT}: its late completions change nothing and are counted
 * (fenced); duplicates only among the rows it held; 0 lost.
 */
final class PauseNode extends Scenario {

    PauseNode() {
        super(3, "SIGSTOP a node for twice the lease, then SIGCONT");
    }

    @Override
    void run(Harness h, Verdict v) throws Exception {
        UUID app = app(number, 1);
        Settings s = h.settings;
        try (Receiver receiver = Receiver.start()) {
            receiver.delay(200);
            h.rest.webhookTrigger(h.cluster.anyUp(), app, receiver.url(), 10);
            Ledger ledger = new Ledger();
            Map<Node, double[]> before = h.counters();
            Set<UUID> held = new HashSet<>();
            long resumed;
            Node node = h.cluster.nodes.get(1);
            try (Load load = new Load(h.cluster, h.rest, ledger, app, s.rate(), 0, 8).start()) {
                sleepSeconds(5);
                node.pause();
                OffsetDateTime stoppedAt = databaseNow(h);
                held.addAll(h.claimedBy(node));
                Progress.say("scenario 3: %s stopped with %d rows claimed; continuing it in %d ms", node, held.size(),
                        2 * s.leaseMillis());
                Thread.sleep(2 * s.leaseMillis());
                node.resume();
                resumed = System.nanoTime();
                // a claim the node had made but not yet committed when it stopped commits now, its lease already over
                held.addAll(
                        h.ids("SELECT id FROM outbox WHERE claimed_by = ? AND claimed_at <= ?", node.name, stoppedAt));
                sleepSeconds(5);
            }
            h.compare(ledger, Map.of(app, receiver), resumed, java.time.Duration.ofMinutes(3), v);
            h.countersSince(before, v);
            Set<UUID> unexplained = new HashSet<>(v.duplicates.keySet());
            unexplained.removeAll(held);
            v.figure("the stopped node held %d rows; %d of them delivered twice", held.size(),
                    v.duplicates.size() - unexplained.size());
            v.require(unexplained.isEmpty(), "%d duplicate(s) of rows the stopped node did not hold: %s",
                    unexplained.size(), unexplained);
            v.require(held.isEmpty() || v.fenced > 0,
                    "the stopped node held %d rows, but no late completion was fenced", held.size());
            v.require(v.fenced <= held.size(), "%d completions fenced, more than the %d rows the stopped node held",
                    v.fenced, held.size());
        }
    }

    static OffsetDateTime databaseNow(Harness h) throws Exception {
        try (Connection con = h.db.connect();
                Statement st = con.createStatement();
                ResultSet rs = st.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }
}
