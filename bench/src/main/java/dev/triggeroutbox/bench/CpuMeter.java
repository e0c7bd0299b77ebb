package dev.triggeroutbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Where the machine's CPU went during a measured stretch: the server JVM, PostgreSQL's processes, nginx, and the
 * whole machine (every process and the kernel), read from Linux's {@code /proc}. A drain's rows/s tells how fast;
 * this tells which process paid for each row, so two drains can be compared part by part.
 */
final class CpuMeter {

    /** CPU time in nanoseconds per part at one instant. */
    record Sample(Map<String, Long> nanos) {
        /** Per part, microseconds of CPU per row between {@code before} and this sample. */
        Map<String, Double> microsPerRow(Sample before, long rows) {
            Map<String, Double> per = new LinkedHashMap<>();
            nanos.forEach((part, n) -> per.put(part, (n - before.nanos.getOrDefault(part, 0L)) / 1e3 / rows));
            return per;
        }
    }

    private static final long TICK_NANOS = 10_000_000L; // USER_HZ = 100 on Linux
    private final Server server;

    CpuMeter(Server server) {
        this.server = server;
    }

    Sample sample() {
        Map<String, Long> n = new LinkedHashMap<>();
        n.put("server", server.cpuNanos());
        // the server's time in the kernel: its system calls, and the loopback network's work done on its behalf
        n.put("server-kernel",
                server.processes()
                        .mapToLong(p -> ticks(Path.of("/proc", Long.toString(p.pid()), "stat"), any -> true, 12))
                        .sum() * TICK_NANOS);
        n.put("postgres", byName("postgres"));
        n.put("nginx", byName("nginx"));
        n.put("machine", machineBusy());
        return new Sample(n);
    }

    /** CPU time the server JVM's JIT compiler threads have used so far (Linux names them "C1/C2 CompilerThre"). */
    long compilerNanos() {
        Set<String> compilers = Set.of("C1 CompilerThre", "C2 CompilerThre");
        return server.processes().mapToLong(p -> {
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(p.pid()), "task"))) {
                return tasks.mapToLong(t -> ticks(t.resolve("stat"), compilers::contains, 11, 12)).sum();
            } catch (IOException e) {
                return 0; // the process ended meanwhile
            }
        }).sum() * TICK_NANOS;
    }

    /** Formats "server 31.2 · postgres 40.1 · nginx 4.2 · machine 90.0 µs/row". */
    static String describe(Map<String, Double> perRow) {
        StringBuilder b = new StringBuilder();
        perRow.forEach((part, micros) -> b.append(b.length() == 0 ? "" : " · ").append(part).append(' ')
                .append(String.format(java.util.Locale.ROOT, "%.1f", micros)));
        return b.append(" µs/row").toString();
    }

    /**
     * User and system time of every process whose command name is {@code name}, and of its children that have ended
     * (PostgreSQL's backends end with their connections: the postmaster's account keeps their time).
     */
    private static long byName(String name) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .mapToLong(p -> ticks(p.resolve("stat"), name::equals, 11, 12, 13, 14)).sum()
                    * TICK_NANOS;
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * The sum of fields {@code fields} of a process's (or thread's) stat line after its name (11: user time, 12:
     * system time, 13 and 14: the same of its children it has waited for; in ticks), when its command name is
     * {@code named}; the file is read once.
     */
    private static long ticks(Path stat, Predicate<String> named, int... fields) {
        try {
            String s = Files.readString(stat);
            int open = s.indexOf('(');
            int close = s.lastIndexOf(')');
            if (open < 0 || close < 0 || !named.test(s.substring(open + 1, close))) {
                return 0;
            }
            String[] f = s.substring(close + 2).split(" ");
            long sum = 0;
            for (int field : fields) {
                sum += Long.parseLong(f[field]);
            }
            return sum;
        } catch (IOException | RuntimeException e) {
            return 0; // the process ended meanwhile
        }
    }

    /** Every CPU's time not idle or waiting, since boot. */
    private static long machineBusy() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            String[] f = lines.get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy * TICK_NANOS;
        } catch (IOException e) {
            return 0;
        }
    }
}
