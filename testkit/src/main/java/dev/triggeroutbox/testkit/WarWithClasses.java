package dev.triggeroutbox.testkit;

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
 * The WAR a harness deploys: the one the build produced, unchanged, plus the compiled classes of one package of the
 * harness's own (the benchmark's no-op handler and load endpoint, the fault harness's poison handler). Added as class
 * files, so the harness never loads them itself, and the product WAR never contains test code.
 */
public final class WarWithClasses {

    private WarWithClasses() {
    }

    /**
     * @param productWar the build's WAR
     * @param classes the harness's compiled classes (its output directory)
     * @param pkg the package to add, as a path ({@code dev/triggeroutbox/bench/server})
     * @param out where the WAR is written
     */
    public static Path build(Path productWar, Path classes, String pkg, Path out) throws IOException {
        WebArchive war = ShrinkWrap.createFromZipFile(WebArchive.class, productWar.toFile());
        List<Path> added;
        try (Stream<Path> files = Files.list(classes.resolve(pkg))) {
            added = files.filter(f -> f.getFileName().toString().endsWith(".class")).sorted().toList();
        }
        if (added.isEmpty()) {
            throw new IllegalStateException("no compiled classes in " + classes.resolve(pkg));
        }
        for (Path f : added) {
            war.addAsWebInfResource(new FileAsset(f.toFile()), "classes/" + pkg + "/" + f.getFileName());
        }
        Files.createDirectories(out.getParent());
        war.as(ZipExporter.class).exportTo(out.toFile(), true);
        return out;
    }
}
