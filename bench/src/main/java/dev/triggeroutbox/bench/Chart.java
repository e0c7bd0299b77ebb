package dev.triggeroutbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The run as one SVG picture: throughput bars on the left (each group scaled to its own largest bar),
 * latency per offered load on the right (p50 and p99, wake-up on and off, logarithmic milliseconds).
 */
final class Chart {

    private static final int WIDTH = 1100;
    private static final int HEIGHT = 600;
    private static final String ON_P50 = "#6baed6";
    private static final String ON_P99 = "#08519c";
    private static final String OFF_P50 = "#fdae6b";
    private static final String OFF_P99 = "#d94801";

    private final StringBuilder svg = new StringBuilder();

    private Chart() {
    }

    static String svg(Results r, Settings s) {
        Chart c = new Chart();
        c.svg.append(f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        c.svg.append(f("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", WIDTH, HEIGHT));
        c.text(20, 28, "Trigger Outbox benchmark (" + s.mode() + " run)", "start", 16, "bold");
        c.throughput(r, 20, 60);
        c.latency(r, 580, 60);
        if (r.backlog != null) {
            c.text(580, HEIGHT - 14,
                    f("claim of %d: %,d due %.2f ms, %,d due %.2f ms (ratio %.2f)", r.backlog.batchSize(),
                            r.backlog.small().dueRows(), r.backlog.small().medianMs(), r.backlog.large().dueRows(),
                            r.backlog.large().medianMs(), r.backlog.ratio()),
                    "start", 12, "normal");
        }
        c.svg.append("</svg>\n");
        return c.svg.toString();
    }

    private record Bar(String label, double value, String unit, String color) {
    }

    private void throughput(Results r, int x, int y) {
        text(x, y, "Throughput", "start", 14, "bold");
        List<List<Bar>> groups = new ArrayList<>();
        List<String> titles = new ArrayList<>();
        if (r.drain != null) {
            titles.add(f("Drain, %,d due rows (rows/s)", r.drain.rows()));
            groups.add(List.of(new Bar("(a) Trigger Outbox", r.drain.ours().perSecond(), "", "#08519c"),
                    new Bar("(b) db-scheduler", r.drain.dbScheduler().perSecond(), "", "#969696"),
                    new Bar("(c) raw SQL floor", r.drain.rawFloor().perSecond(), "", "#252525")));
        }
        if (r.enqueue != null) {
            titles.add(f("Enqueue, %d clients (per s)", r.enqueue.clients()));
            groups.add(List.of(new Bar("REST publish", r.enqueue.rest().perSecond(), " req", "#08519c"),
                    new Bar("REST batch", r.enqueue.restBatch().perSecond(), " rows", "#3182bd"),
                    new Bar("Java API publish", r.enqueue.javaApi().perSecond(), " rows", "#6baed6"),
                    new Bar("Java API publishAll", r.enqueue.javaBatch().perSecond(), " rows", "#9ecae1"),
                    new Bar("single-row INSERT", r.enqueue.floor().perSecond(), " tx", "#252525")));
        }
        if (r.bloat != null) {
            titles.add(f("Drain with a snapshot held %d s (rows/s)", r.bloat.holdSeconds()));
            groups.add(List.of(new Bar("baseline", r.bloat.baseline().perSecond(), "", "#08519c"),
                    new Bar("snapshot held", r.bloat.held().perSecond(), "", "#d94801"),
                    new Bar("held, last slice", r.bloat.heldLast().perSecond(), "", "#fdae6b"),
                    new Bar("after", r.bloat.after().perSecond(), "", "#6baed6")));
        }
        int top = y + 24;
        int labelWidth = 150;
        int barMax = 300;
        for (int g = 0; g < groups.size(); g++) {
            text(x, top, titles.get(g), "start", 12, "bold");
            top += 8;
            double max = groups.get(g).stream().mapToDouble(Bar::value).max().orElse(1);
            for (Bar b : groups.get(g)) {
                int w = (int) Math.max(1, Math.round(barMax * b.value() / max));
                text(x + labelWidth - 6, top + 14, b.label(), "end", 12, "normal");
                svg.append(f("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"18\" fill=\"%s\"/>\n", x + labelWidth, top,
                        w, b.color()));
                text(x + labelWidth + w + 6, top + 14, f("%,.0f%s", b.value(), b.unit()), "start", 12, "normal");
                top += 24;
            }
            top += 22;
        }
    }

    private void latency(Results r, int x, int y) {
        text(x, y, "Latency per offered load: commit → delivery start (ms, log scale)", "start", 14, "bold");
        if (r.latency == null) {
            text(x, y + 30, "(not run)", "start", 12, "normal");
            return;
        }
        List<Integer> loads = r.latency.points().stream().map(Results.LoadPoint::offered).distinct().toList();
        double max = r.latency.points().stream().mapToDouble(Results.LoadPoint::p99).max().orElse(1);
        double lo = 0.1;
        double hi = Math.pow(10, Math.ceil(Math.log10(Math.max(max, 1))));
        int plotLeft = x + 50;
        int plotTop = y + 40;
        int plotHeight = 380;
        int plotWidth = 440;
        // grid and axis labels, one per decade
        for (double v = lo; v <= hi * 1.0001; v *= 10) {
            int gy = yOf(v, lo, hi, plotTop, plotHeight);
            svg.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#dddddd\"/>\n", plotLeft, gy,
                    plotLeft + plotWidth, gy));
            text(plotLeft - 6, gy + 4, v < 1 ? f("%.1f", v) : f("%,.0f", v), "end", 11, "normal");
        }
        svg.append(
                f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", plotLeft, plotTop + plotHeight,
                        plotLeft + plotWidth, plotTop + plotHeight));
        int slot = plotWidth / Math.max(1, loads.size());
        int barWidth = Math.min(22, (slot - 20) / 4);
        for (int i = 0; i < loads.size(); i++) {
            int load = loads.get(i);
            int left = plotLeft + i * slot + (slot - 4 * barWidth) / 2;
            Results.LoadPoint on = r.latency.at(true, load);
            Results.LoadPoint off = r.latency.at(false, load);
            double[] values = {on == null ? 0 : on.p50(), on == null ? 0 : on.p99(), off == null ? 0 : off.p50(),
                    off == null ? 0 : off.p99()};
            String[] colors = {ON_P50, ON_P99, OFF_P50, OFF_P99};
            for (int b = 0; b < 4; b++) {
                double v = Math.max(lo, values[b]);
                int top = yOf(v, lo, hi, plotTop, plotHeight);
                svg.append(f(
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%.2f ms</title></rect>\n",
                        left + b * barWidth, top, barWidth - 2, plotTop + plotHeight - top, colors[b], values[b]));
                text(left + b * barWidth + barWidth / 2, top - 4,
                        values[b] < 10 ? f("%.1f", values[b]) : f("%.0f", values[b]), "middle", 9, "normal");
            }
            int cx = plotLeft + i * slot + slot / 2;
            text(cx, plotTop + plotHeight + 18, f("%,d/s offered", load), "middle", 12, "bold");
            if (on != null) {
                text(cx, plotTop + plotHeight + 34, f("%,.0f/s achieved", on.achieved()), "middle", 11, "normal");
            }
        }
        int ly = plotTop + plotHeight + 58;
        String[][] legend = {{ON_P50, "p50, wake-up on"}, {ON_P99, "p99, wake-up on"}, {OFF_P50, "p50, wake-up off"},
                {OFF_P99, "p99, wake-up off"}};
        for (int i = 0; i < legend.length; i++) {
            int lx = plotLeft + i * 115;
            svg.append(
                    f("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx, ly - 10, legend[i][0]));
            text(lx + 16, ly, legend[i][1], "start", 11, "normal");
        }
    }

    private static int yOf(double v, double lo, double hi, int top, int height) {
        double frac = (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
        return (int) Math.round(top + height - frac * height);
    }

    private void text(int x, int y, String text, String anchor, int size, String weight) {
        svg.append(f("<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" font-size=\"%d\" font-weight=\"%s\">%s</text>\n",
                x, y, anchor, size, weight, text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")));
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
