package dev.triggeroutbox.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The product's packages (outbox, dispatch, targets, …) depend on each other one way only: no two of them use
 * each other's classes, so each can be read, and changed, from the ones below it. Shared types live in the lower
 * package; a lower package tells a higher one of something through a CDI event.
 */
class PackageDependenciesTest {

    private static final Path ROOT = Path.of("src/main/java/dev/triggeroutbox");
    private static final Pattern USE = Pattern.compile("\\bdev\\.triggeroutbox\\.(\\w+)\\.\\w+");

    @Test
    void noTwoPackagesUseEachOther() throws IOException {
        Map<String, Map<String, Set<String>>> uses = uses(); // package -> package it uses -> files that do
        List<String> twoWay = new ArrayList<>();
        uses.forEach((a, targets) -> targets.forEach((b, files) -> {
            if (a.compareTo(b) < 0 && uses.getOrDefault(b, Map.of()).containsKey(a)) {
                twoWay.add(a + " <-> " + b + ": " + a + " in " + files + ", " + b + " in " + uses.get(b).get(a));
            }
        }));
        assertEquals(List.of(), twoWay);
        assertTrue(uses.size() > 10, "the scan found the packages: " + uses.keySet());
    }

    private static Map<String, Map<String, Set<String>>> uses() throws IOException {
        Map<String, Map<String, Set<String>>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Path rel = ROOT.relativize(f);
                if (rel.getNameCount() < 2) {
                    continue; // a class in the root package
                }
                String from = rel.getName(0).toString();
                Matcher m = USE.matcher(Files.readString(f));
                while (m.find()) {
                    String to = m.group(1);
                    if (!to.equals(from)) {
                        uses.computeIfAbsent(from, k -> new TreeMap<>()).computeIfAbsent(to, k -> new TreeSet<>())
                                .add(rel.getFileName().toString());
                    }
                }
            }
        }
        return uses;
    }
}
