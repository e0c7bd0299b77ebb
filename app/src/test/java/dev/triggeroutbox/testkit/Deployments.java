package dev.triggeroutbox.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/** The WAR the build produced (not a hand-listed copy), plus the tests' handlers and helpers. */
public final class Deployments {

    private Deployments() {
    }

    /**
     * For in-container tests: the WAR plus the test handlers, with Arquillian's test runner servlet
     * exempted from the WAR's sign-in constraint on every path (an exact path wins over /*).
     */
    public static WebArchive outboxWithTestHandlers() {
        WebArchive war = outbox();
        String webXml;
        try (InputStream in = war.get("WEB-INF/web.xml").getAsset().openStream()) {
            webXml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        war.delete("WEB-INF/web.xml");
        war.setWebXML(new StringAsset(webXml.replace("</web-app>", """
                  <security-constraint>
                    <web-resource-collection>
                      <web-resource-name>arquillian test runner</web-resource-name>
                      <url-pattern>/ArquillianServletRunnerEE9</url-pattern>
                    </web-resource-collection>
                  </security-constraint>
                </web-app>""")));
        return war.addClasses(Recorder.class, TestHandlers.class, TestHandlers.Accepting.class,
                TestHandlers.Flaky.class, TestHandlers.Failing.class, TestHandlers.Hanging.class,
                TestHandlers.Gate.class,
                TestHandlers.Invoker.class, TestHandlers.Cascader.class, TestHandlers.Publisher.class,
                Eventually.class, Sql.class);
    }

    public static WebArchive outbox() {
        File war = new File(System.getProperty("outbox.it.war", "target/trigger-outbox.war"));
        return ShrinkWrap.createFromZipFile(WebArchive.class, war).as(WebArchive.class);
    }
}
