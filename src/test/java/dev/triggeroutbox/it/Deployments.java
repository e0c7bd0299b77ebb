package dev.triggeroutbox.it;

import java.io.File;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/** The WAR the build produced (not a hand-listed copy), plus the tests' handlers and helpers. */
public final class Deployments {

    private Deployments() {
    }

    public static WebArchive outboxWithTestHandlers() {
        return outbox().addClasses(Recorder.class, TestHandlers.class, TestHandlers.Accepting.class,
                TestHandlers.Flaky.class, TestHandlers.Failing.class, TestHandlers.Hanging.class,
                Eventually.class, Sql.class);
    }

    public static WebArchive outbox() {
        File war = new File(System.getProperty("outbox.it.war", "target/trigger-outbox.war"));
        return ShrinkWrap.createFromZipFile(WebArchive.class, war).as(WebArchive.class);
    }
}
