package dev.triggeroutbox.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's configuration table and the keys the code declares agree: every {@code @ConfigProperty} key is a row
 * of the table with the code's default, and every row is a key the code reads.
 */
class ConfigurationTableTest {

    private static final Pattern DECLARED = Pattern.compile(
            "@ConfigProperty\\(\\s*name\\s*=\\s*\"([^\"]+)\"(?:\\s*,\\s*defaultValue\\s*=\\s*\"([^\"]*)\")?");
    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| ([^|]*) \\|", Pattern.MULTILINE);
    /** Read by prefix, not by a declared key: the Kafka producer's pass-through settings. */
    private static final String PASS_THROUGH = "outbox.kafka.producer.<setting>";

    @Test
    void everyDeclaredKeyIsInTheTableWithItsDefaultAndNothingElseIs() throws IOException {
        Map<String, String> declared = declared(Path.of("src/main/java"));
        Map<String, String> documented = documented(Path.of(System.getProperty("outbox.readme", "../README.md")));

        List<String> problems = new ArrayList<>();
        declared.forEach((key, value) -> {
            String shown = documented.get(key);
            if (shown == null) {
                problems.add(key + ": declared in the code, missing from the README's table");
            } else if (value != null && !value.isEmpty() && !shown.startsWith("`" + value + "`")) {
                problems.add(key + ": the code's default is " + value + ", the README says " + shown);
            }
        });
        documented.keySet().stream().filter(k -> !declared.containsKey(k) && !k.equals(PASS_THROUGH))
                .forEach(k -> problems.add(k + ": in the README's table, declared nowhere in the code"));
        assertEquals(List.of(), problems);
        assertTrue(declared.size() > 40, "the scan found the keys: " + declared.size());
    }

    /** Each key the code declares, with its default (null: none); one key declared twice must say the same. */
    private static Map<String, String> declared(Path sources) throws IOException {
        Map<String, String> keys = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = DECLARED.matcher(Files.readString(f));
                while (m.find()) {
                    String before = keys.put(m.group(1), m.group(2));
                    if (before != null && !before.equals(m.group(2))) {
                        throw new AssertionError(m.group(1) + " has two defaults: " + before + " and " + m.group(2));
                    }
                }
            }
        }
        return keys;
    }

    /** The rows of the table under "## Configuration": key → the Default column as written. */
    private static Map<String, String> documented(Path readme) throws IOException {
        String text = Files.readString(readme);
        int start = text.indexOf("\n## Configuration");
        int end = text.indexOf("\n## ", start + 1);
        assertTrue(start >= 0 && end > start, "the README has a Configuration section");
        Map<String, String> rows = new TreeMap<>();
        Matcher m = ROW.matcher(text.substring(start, end));
        while (m.find()) {
            rows.put(m.group(1), m.group(2).trim());
        }
        return rows;
    }
}
