package dev.triggeroutbox.metrics.boundary;

import dev.triggeroutbox.dispatch.control.DeliveryTimes;
import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.rest.control.Callers;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET /metrics}: this node's outbox metrics in the Prometheus text format, for a scraper that
 * signs in as an admin. Counters are this node's since it started (Prometheus sums the nodes); the
 * backlog gauges are read from the database, so every node reports the same cluster-wide value.
 */
@Path("metrics")
@RequestScoped
@RolesAllowed(Callers.ADMIN)
public class MetricsResource {

    @Inject
    DispatchCounters counters;

    @Inject
    Jdbc jdbc;

    @GET
    @Produces("text/plain; version=0.0.4; charset=utf-8")
    public String scrape() {
        StringBuilder out = new StringBuilder(2048);
        byKind(out, "outbox_enqueued_total", "Rows written by transactions that committed on this node.",
                counters.enqueuedByKind());
        byKind(out, "outbox_delivered_total", "Rows this node delivered and finished.", counters.deliveredByKind());
        byKind(out, "outbox_retried_total", "Failed attempts this node rescheduled.", counters.retriedByKind());
        byKind(out, "outbox_dead_lettered_total", "Rows this node moved to dead letters.",
                counters.deadLetteredByKind());
        counter(out, "outbox_lease_recoveries_total", "Expired leases this node released (their node died or stalled).",
                counters.leasesRecovered());
        counter(out, "outbox_cancelled_in_flight_total",
                "Rows cancelled during their attempt that this node finished as cancelled.",
                counters.cancelled());
        counter(out, "outbox_fenced_completions_total",
                "Late results this node discarded because its claim had expired.",
                counters.fenced());
        counter(out, "outbox_claimed_rows_total", "Rows this node claimed.", counters.claimed());
        counter(out, "outbox_claims_total",
                "Claim statements this node ran; claimed rows per claim shows how well claims are filled.",
                counters.claims());
        counter(out, "outbox_finishing_windows_total",
                "Finishing transactions this node committed, each for the deliveries that ended in one window.",
                counters.finishingWindows());
        histogram(out, counters.deliveryTimes());
        backlog(out);
        long age = counters.millisSinceLastTick();
        gauge(out, "outbox_dispatcher_last_tick_age_seconds",
                "Seconds since this node's poll timer last fired (-1: never).",
                age < 0 ? -1 : age / 1000.0);
        return out.toString();
    }

    private void backlog(StringBuilder out) {
        jdbc.first("""
                SELECT count(*), coalesce(extract(epoch FROM now() - min(next_attempt_at)), 0)
                FROM outbox WHERE claim_token IS NULL AND next_attempt_at <= now()""", Jdbc.Binder.NONE, rs -> {
            gauge(out, "outbox_due_rows", "Rows due now and not claimed (all nodes).", rs.getLong(1));
            gauge(out, "outbox_oldest_due_age_seconds", "How long the oldest due row has waited (all nodes).",
                    rs.getDouble(2));
            return out;
        });
    }

    private static void byKind(StringBuilder out, String name, String help, Map<String, Long> values) {
        head(out, name, help, "counter");
        values.forEach(
                (kind, v) -> out.append(name).append("{kind=\"").append(kind).append("\"} ").append(v).append('\n'));
    }

    private static void counter(StringBuilder out, String name, String help, long value) {
        head(out, name, help, "counter");
        out.append(name).append(' ').append(value).append('\n');
    }

    private static void gauge(StringBuilder out, String name, String help, double value) {
        head(out, name, help, "gauge");
        out.append(name).append(' ').append(number(value)).append('\n');
    }

    private static void histogram(StringBuilder out, DeliveryTimes times) {
        String name = "outbox_delivery_duration_seconds";
        head(out, name, "How long deliveries took, from start to result.", "histogram");
        long[] cumulative = times.cumulative();
        for (int i = 0; i < DeliveryTimes.BOUNDS.length; i++) {
            out.append(name).append("_bucket{le=\"").append(number(DeliveryTimes.BOUNDS[i])).append("\"} ")
                    .append(cumulative[i]).append('\n');
        }
        out.append(name).append("_bucket{le=\"+Inf\"} ").append(cumulative[cumulative.length - 1]).append('\n');
        out.append(name).append("_sum ").append(number(times.sumSeconds())).append('\n');
        out.append(name).append("_count ").append(times.count()).append('\n');
    }

    private static void head(StringBuilder out, String name, String help, String type) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15
                ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.6f", v);
    }
}
