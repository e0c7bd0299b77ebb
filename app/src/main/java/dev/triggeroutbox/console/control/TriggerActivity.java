package dev.triggeroutbox.console.control;

import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What each trigger of a page did in the last hour, from the delivery history: rows delivered and dead-lettered, and
 * p50/p99 of the delivering attempt's duration (claim to finish, as the delivery log has it). One statement per page.
 */
@ApplicationScoped
public class TriggerActivity {

    /** A trigger's last hour; the percentiles are null without a delivered row. */
    public record LastHour(long delivered, long dead, Double p50Millis, Double p99Millis) {
        static final LastHour NONE = new LastHour(0, 0, null, null);
    }

    @Inject
    Jdbc jdbc;

    /** The last hour of each of {@code triggers} (every one of them in the answer). */
    public Map<UUID, LastHour> lastHour(List<UUID> triggers) {
        Map<UUID, LastHour> byTrigger = new HashMap<>();
        triggers.forEach(t -> byTrigger.put(t, LastHour.NONE));
        if (triggers.isEmpty()) {
            return byTrigger;
        }
        String sql = """
                SELECT trigger_id,
                       count(*) FILTER (WHERE outcome = 'delivered'),
                       count(*) FILTER (WHERE outcome = 'dead'),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - claimed_at) * 1000)
                           FILTER (WHERE outcome = 'delivered' AND claimed_at IS NOT NULL),
                       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - claimed_at) * 1000)
                           FILTER (WHERE outcome = 'delivered' AND claimed_at IS NOT NULL)
                FROM delivery_history
                WHERE trigger_id = ANY (?)                                      -- the page's triggers
                  AND finished_at > now() - interval '1 hour'                   -- the last hour's partitions only
                GROUP BY trigger_id
                """;
        jdbc.list(sql, p -> p.array("uuid", triggers.toArray(UUID[]::new)), rs -> byTrigger.put(
                rs.getObject(1, UUID.class),
                new LastHour(rs.getLong(2), rs.getLong(3), (Double) rs.getObject(4), (Double) rs.getObject(5))));
        return byTrigger;
    }
}
