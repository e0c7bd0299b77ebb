package dev.triggeroutbox.replies.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The caps on invokes that wait for their answer on this node, per caller and in all. A waiting
 * invoke holds no thread, but it does hold an open connection, a little memory and a place in every
 * look at the replies table; the caps keep one runaway client from taking all of that, and keep a
 * node's looks small. A slot is taken before the invoke writes anything, so a refused invoke
 * ({@code TOO_MANY}) leaves no row behind.
 */
@ApplicationScoped
public class WaitingInvokes {

    /** How long a refused caller is told to wait: waits end within the invoke timeout, most much sooner. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    /**
     * Invokes one caller (principal) may have waiting on this node at once. 100 is more than a client
     * with an ordinary connection pool opens, and a tenth of the node's default cap, so ten busy callers
     * fit before any of them is refused. Lower it when many callers share a node; 1 makes invoke strictly
     * one-at-a-time per caller.
     */
    @Inject
    @ConfigProperty(name = "outbox.invoke.max-waiting-per-caller", defaultValue = "100")
    int maxPerCaller;

    /**
     * Invokes waiting on this node at once, from all callers. Each costs an open connection (a file
     * descriptor) and a few kilobytes, and every 100 ms all of them are looked up in one statement;
     * 1,000 keeps that statement small and stays well below the usual limit of 1,024 open files per
     * process of older systems. Higher: more concurrent callers, larger looks.
     */
    @Inject
    @ConfigProperty(name = "outbox.invoke.max-waiting", defaultValue = "1000")
    int maxPerNode;

    private final Map<String, Integer> perCaller = new HashMap<>();
    private int total;

    @PostConstruct
    void check() {
        if (maxPerCaller < 1 || maxPerNode < 1) {
            throw new IllegalStateException(
                    "outbox.invoke.max-waiting-per-caller and outbox.invoke.max-waiting must be at least 1");
        }
    }

    /** One waiting invoke's place under the caps. Closing it (once counts, from any thread) gives it back. */
    public final class Slot implements AutoCloseable {
        private final String caller;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private Slot(String caller) {
            this.caller = caller;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                giveBack(caller);
            }
        }
    }

    /** A slot for {@code caller}, or a {@code TOO_MANY} refusal when this caller or this node is at its cap. */
    public synchronized Slot take(String caller) {
        if (total >= maxPerNode) {
            throw OutboxRefusedException.tooMany("too-many-waiting-invokes", "this node already holds " + maxPerNode
                    + " waiting invokes (outbox.invoke.max-waiting); retry later", RETRY_AFTER);
        }
        int mine = perCaller.getOrDefault(caller, 0);
        if (mine >= maxPerCaller) {
            throw OutboxRefusedException.tooMany("too-many-waiting-invokes", caller + " already has " + maxPerCaller
                    + " waiting invokes on this node (outbox.invoke.max-waiting-per-caller); retry later", RETRY_AFTER);
        }
        perCaller.put(caller, mine + 1);
        total++;
        return new Slot(caller);
    }

    private synchronized void giveBack(String caller) {
        total--;
        // no entry is kept for a caller with nothing waiting, so the map holds only current callers
        perCaller.computeIfPresent(caller, (c, n) -> n == 1 ? null : n - 1);
    }
}
