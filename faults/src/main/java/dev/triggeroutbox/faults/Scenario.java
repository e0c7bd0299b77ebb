package dev.triggeroutbox.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * One named fault scenario: it registers its apps' triggers, drives load, injects its fault, heals, and
 * fills a {@link Verdict}. Each scenario has apps of its own, so ledgers never mix.
 */
abstract class Scenario {

    /** The scenarios are numbered 1 to this. */
    static final int LAST = 11;

    final int number;
    final String title;

    Scenario(int number, String title) {
        this.number = number;
        this.title = title;
    }

    abstract void run(Harness h, Verdict v) throws Exception;

    /** App {@code k} (1 or 2) of scenario {@code n}: fixed, so the producer user can be scoped to them. */
    static UUID app(int n, int k) {
        return UUID.fromString(String.format(Locale.ROOT, "fa017000-0000-4000-8000-%012d", n * 10 + k));
    }

    static List<UUID> allApps() {
        List<UUID> apps = new ArrayList<>();
        for (int n = 1; n <= LAST; n++) {
            apps.add(app(n, 1));
            apps.add(app(n, 2));
        }
        return apps;
    }

    static Scenario of(int n) {
        return switch (n) {
            case 1 -> new NoFaults();
            case 2 -> new KillNodes();
            case 3 -> new PauseNode();
            case 4 -> new DatabaseCrash();
            case 5 -> new PoisonRow();
            case 6 -> new ReceiverOutage();
            case 7 -> new Redeploy();
            case 8 -> new ClockSkew();
            case 9 -> new SlowReceiver();
            case 10 -> new StopNode();
            case 11 -> new LaneKills();
            default -> throw new IllegalArgumentException("no scenario " + n);
        };
    }

    static void sleepSeconds(double seconds) throws InterruptedException {
        Thread.sleep((long) (seconds * 1000));
    }
}
