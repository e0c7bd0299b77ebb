package dev.triggeroutbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.FileAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The WAR the benchmark deploys: the one the build produced, unchanged, plus the classes of
 * {@code dev.triggeroutbox.bench.server} (the no-op handler and the load endpoint). Added as class
 * files, so the harness never loads them itself.
 */
final class BenchWar {

    static final String PACKAGE = "dev/triggeroutbox/bench/server";

    private BenchWar() {
    }

    static void build(Path productWar, Path classes, Path out) throws IOException {
        WebArchive war = ShrinkWrap.createFromZipFile(WebArchive.class, productWar.toFile());
        List<Path> added;
        try (Stream<Path> files = Files.list(classes.resolve(PACKAGE))) {
            added = files.filter(f -> f.getFileName().toString().endsWith(".class")).sorted().toList();
        }
        if (added.isEmpty()) {
            throw new IllegalStateException("no compiled classes in " + classes.resolve(PACKAGE));
        }
        for (Path f : added) {
            war.addAsWebInfResource(new FileAsset(f.toFile()), "classes/" + PACKAGE + "/" + f.getFileName());
        }
        Files.createDirectories(out.getParent());
        war.as(ZipExporter.class).exportTo(out.toFile(), true);
    }
}
