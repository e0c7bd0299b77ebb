package dev.triggeroutbox.health.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Readiness requires the newest migration; this keeps the constant in step with db/migration. */
class SchemaVersionTest {

    @Test
    void readinessRequiresTheNewestMigration() throws IOException {
        Pattern versioned = Pattern.compile("V(\\d+)__.*\\.sql");
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
            int newest = files.map(f -> versioned.matcher(f.getFileName().toString()))
                    .filter(Matcher::matches).mapToInt(m -> Integer.parseInt(m.group(1))).max().orElse(0);
            assertEquals(newest, HealthChecks.SCHEMA_VERSION);
        }
    }
}
