package dev.triggeroutbox.faults;

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
 * The WAR the nodes deploy: the build's, unchanged, plus the classes of {@code dev.triggeroutbox.faults.server}
 * (the poison handler of scenario 5). The product WAR itself never contains test code.
 */
final class FaultsWar {

    static final String PACKAGE = "dev/triggeroutbox/faults/server";

    private FaultsWar() {
    }

    static Path build(Path productWar, Path classes, Path out) throws IOException {
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
        return out;
    }
}
