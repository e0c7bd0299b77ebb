package dev.triggeroutbox.console.boundary;

import dev.triggeroutbox.console.control.Activity;
import dev.triggeroutbox.console.control.Nodes;
import dev.triggeroutbox.console.control.Stats;
import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.ZoneOffset;
import java.util.List;

/** The console's overview as JSON: totals, activity per minute, breakdowns and nodes, each a list under {@code items} but the totals. */
final class OverviewJson {

    private OverviewJson() {
    }

    /** The totals, and beside them the dispatcher switch's state, so the console shows pause or resume. */
    static JsonObject totals(Stats.Totals t, boolean paused) {
        JsonObjectBuilder kinds = Jsons.object();
        t.byKind().forEach((kind, w) -> kinds.add(kind, waiting(Jsons.object(), w)));
        return waiting(Jsons.object(), t.all())
                .add("deliveredLastMinute", t.deliveredLastMinute())
                .add("oldestDueAgeSeconds", seconds(t.oldestDueAgeSeconds()))
                .add("byKind", kinds)
                .add("asOf", ConsoleJson.utc(t.asOf().atOffset(ZoneOffset.UTC)))
                .add("paused", paused)
                .build();
    }

    private static JsonObjectBuilder waiting(JsonObjectBuilder json, Stats.Waiting w) {
        return json.add("pending", w.pending()).add("scheduled", w.scheduled()).add("inFlight", w.inFlight())
                .add("dead", w.dead()).add("held", w.held());
    }

    static JsonObject activity(List<Activity.Minute> minutes) {
        JsonArrayBuilder items = Jsons.array();
        minutes.forEach(m -> items.add(Jsons.object()
                .add("minute", ConsoleJson.utc(m.minute()))
                .add("delivered", m.finished().delivered())
                .add("dead", m.finished().dead())
                .add("failedAttempts", m.finished().failedAttempts())
                .add("cancelled", m.finished().cancelled())));
        return Jsons.object().add("items", items).build();
    }

    /** Each line keyed by its dimension's name ({@code sourceKind} or {@code appId}). */
    static JsonObject breakdown(Activity.By by, List<Activity.Line> lines) {
        JsonArrayBuilder items = Jsons.array();
        lines.forEach(l -> items.add(Jsons.object()
                .add(by.field(), l.key())
                .add("waiting", l.waiting())
                .add("inFlight", l.inFlight())
                .add("dead", l.dead())
                .add("deliveredLastHour", l.delivered())
                .add("deadLetteredLastHour", l.deadLettered())
                .add("cancelledLastHour", l.cancelled())));
        return Jsons.object().add("items", items).build();
    }

    static JsonObject nodes(List<Nodes.Node> nodes) {
        JsonArrayBuilder items = Jsons.array();
        nodes.forEach(n -> items.add(Jsons.object()
                .add("node", n.name())
                .add("startedAt", ConsoleJson.utc(n.startedAt()))
                .add("lastTickAt", ConsoleJson.utc(n.lastTickAt()))
                .add("lastTickAgeSeconds", seconds(n.lastTickAgeSeconds()))
                .add("inFlight", n.inFlight())
                .add("paused", n.paused())
                .add("pollIntervalMillis", n.pollIntervalMillis())
                .add("status", n.status().wire())));
        return Jsons.object().add("items", items).build();
    }

    /** Seconds to the millisecond. */
    private static double seconds(double s) {
        return Math.round(s * 1000) / 1000.0;
    }
}
