package dev.triggeroutbox.console;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.APP_A;
import static dev.triggeroutbox.testkit.ItUsers.PASSWORD;
import static dev.triggeroutbox.testkit.ItUsers.PRODUCER_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triggeroutbox.client.OutboxClient;
import dev.triggeroutbox.client.OutboxClient.Call;
import dev.triggeroutbox.client.OutboxClient.Event;
import dev.triggeroutbox.client.OutboxClient.NewRow;
import dev.triggeroutbox.client.OutboxClient.TriggerDefinition;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.ItClients;
import dev.triggeroutbox.testkit.ItDatabase;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The ops console in a real browser (Debian's headless Chromium through its chromedriver) against
 * the deployed WAR: sign in, watch the counts change as events are published, open a dead letter,
 * replay it by clicking, and see it delivered; cancel a scheduled row from its row page. Screenshots go to
 * target/console-screenshots/. What the test sets up and checks besides the page goes through the typed client.
 * Without the browser the test is skipped on a developer's machine and fails in CI (CI=true).
 */
@ExtendWith(ArquillianExtension.class)
class ConsoleBrowserIT {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of(System.getProperty("outbox.target", "../target"), "console-screenshots");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @ArquillianResource
    URL base;

    private OutboxClient admin;
    private OutboxClient producer;
    private WebDriver browser;
    private Path profile;
    private int shot;

    @BeforeEach
    void open() throws IOException {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if ("true".equals(System.getenv("CI"))) {
            assertTrue(present,
                    "CI runs the browser test: install Debian's chromium and chromium-driver (.ci/run does)");
        }
        Assumptions.assumeTrue(present,
                "Debian's chromium and chromium-driver are not installed; apt-get install -y chromium chromium-driver");
        admin = ItClients.client(base, ADMIN);
        producer = ItClients.client(base, PRODUCER_A);
        profile = Files.createTempDirectory("console-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1440,1000");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().window().setSize(new Dimension(1440, 1000));
        Files.createDirectories(SHOTS);
    }

    @AfterEach
    void close() throws IOException {
        if (browser != null) {
            browser.quit();
        }
        if (admin != null) {
            admin.close();
            producer.close();
        }
        if (profile != null) {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    @Test
    void signInWatchCountsOpenADeadLetterAndReplayIt() throws IOException {
        UUID trigger = trigger("email", "failing");
        browser.get(base.toString());
        screenshot("sign-in");

        // a wrong password is said so on the form
        signIn(ADMIN, "not-the-password");
        WebElement error = waitFor(By.id("signin-error"));
        until(() -> error.isDisplayed() && error.getText().contains("Wrong user name or password"), error::getText);

        signIn(ADMIN, PASSWORD);
        WebElement dead = waitFor(By.id("count-dead"));
        until(() -> !dead.getText().isBlank(), () -> "no dead count shown");
        long deadBefore = number(dead.getText());
        waitFor(By.cssSelector("#chart svg"));
        screenshot("overview");

        List<UUID> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // other tests' email triggers of the app get rows too; ours are the ones of this trigger
            producer.publish(APP_A,
                    Event.of("email", Json.createObjectBuilder().add("subject", "console test " + i).build())).stream()
                    .filter(w -> trigger.equals(w.triggerId())).forEach(w -> rows.add(w.id()));
        }
        assertEquals(3, rows.size());
        // the page refreshes by itself: the three rows show up as dead letters (rows of earlier tests
        // may die meanwhile too, so the count is at least three more once ours are dead)
        for (UUID id : rows) {
            until(() -> "dead".equals(producer.status(id).status()), () -> id + " not dead");
        }
        until(() -> number(browser.findElement(By.id("count-dead")).getText()) >= deadBefore + 3,
                () -> "dead count still " + browser.findElement(By.id("count-dead")).getText());
        screenshot("overview-after-events");

        // the dead-letter browser, filtered to this app's email rows with the form
        browser.findElement(By.cssSelector("nav a[data-view='dead-letters']")).click();
        waitFor(By.id("dl-app")).sendKeys(APP_A.toString());
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("dl-kind"))).selectByValue("email");
        browser.findElement(By.id("dl-error")).sendKeys("boom");
        browser.findElement(By.id("dl-apply")).click();
        UUID row = rows.get(0);
        WebElement open = waitFor(By.cssSelector("a[href='#/dead-letters/" + row + "']"));
        screenshot("dead-letters");
        open.click();
        WebElement payload = waitFor(By.id("dl-payload"));
        assertTrue(payload.getText().contains("console test 0"), payload.getText());
        assertTrue(browser.findElement(By.id("dl-error-text")).getText().contains("boom"));
        screenshot("dead-letter");

        // the handler works again; the admin replays by clicking
        admin.replaceTrigger(APP_A, trigger, TriggerDefinition.handler("email", "recorder"));
        browser.findElement(By.id("dl-replay")).click();
        until(() -> browser.findElements(By.id("row-status")).stream().anyMatch(s -> "delivered".equals(s.getText())),
                () -> browser.findElements(By.id("row-status")).stream().map(WebElement::getText).toList().toString());
        assertEquals("delivered", producer.status(row).status());
        screenshot("replayed-and-delivered");

        // the replay is in the audit record, with who did it
        browser.findElement(By.cssSelector("nav a[data-view='audit']")).click();
        WebElement audit = waitFor(By.id("audit-table"));
        until(() -> audit.getText().contains("dead-letter.replay") && audit.getText().contains(ADMIN), audit::getText);
        screenshot("audit");

        browser.findElement(By.cssSelector("nav a[data-view='triggers']")).click();
        waitFor(By.id("triggers-table"));
        screenshot("triggers");
    }

    /** A row due in an hour, opened on its row page and cancelled with the button: it shows cancelled and is in history so. */
    @Test
    void aScheduledRowIsCancelledFromItsRowPage() throws IOException {
        UUID trigger = trigger("email", "recorder");
        UUID row = producer.enqueue(
                new NewRow(APP_A, "email", trigger, Json.createObjectBuilder().add("subject", "cancel me").build(),
                        OffsetDateTime.now().plusHours(1)));
        browser.get(base.toString());
        signIn(ADMIN, PASSWORD);
        waitFor(By.id("count-dead"));
        browser.get(base + "#/rows/" + row);
        until(() -> "scheduled".equals(waitFor(By.id("row-status")).getText()),
                () -> waitFor(By.id("row-status")).getText());
        screenshot("row-scheduled");
        waitFor(By.id("row-cancel")).click();
        waitFor(By.id("confirm-ok")).click();
        until(() -> "cancelled".equals(browser.findElement(By.id("row-status")).getText()),
                () -> browser.findElement(By.id("row-status")).getText());
        assertTrue(browser.findElements(By.id("row-cancel")).isEmpty(), "a cancelled row has no Cancel button");
        assertEquals("cancelled", producer.status(row).status());
        screenshot("row-cancelled");
    }

    /** A trigger held with its button on the triggers page: its new row shows held on its row page, and Release delivers it. */
    @Test
    void aTriggerHeldFromTheTriggersPageHoldsItsRowsUntilReleased() throws IOException {
        java.util.UUID app = java.util.UUID.randomUUID();
        UUID trigger = admin.createTrigger(app, TriggerDefinition.handler("files", "recorder"), Call.plain()).id();
        browser.get(base.toString());
        signIn(ADMIN, PASSWORD);
        waitFor(By.id("count-held"));
        browser.get(base + "#/triggers?appId=" + app);
        By row = By.cssSelector("tr[data-trigger='" + trigger + "']");
        waitFor(row).findElement(By.cssSelector("button.hold")).click();
        until(() -> waitFor(row).getText().contains("held") && waitFor(row).getText().contains("Release"),
                () -> waitFor(row).getText());
        assertTrue(admin.trigger(app, trigger).held());
        screenshot("trigger-held");

        UUID id = admin.enqueue(NewRow.of(app, "files", trigger, Json.createObjectBuilder().add("held", true).build()));
        browser.get(base + "#/rows/" + id);
        until(() -> "held".equals(waitFor(By.id("row-status")).getText()),
                () -> waitFor(By.id("row-status")).getText());
        screenshot("row-held");

        browser.get(base + "#/triggers?appId=" + app);
        waitFor(row).findElement(By.cssSelector("button.hold")).click();
        until(() -> !waitFor(row).getText().contains("held"), () -> waitFor(row).getText());
        until(() -> "delivered".equals(admin.status(id).status()), () -> admin.status(id).json().toString());
        // its row page shows the attempt that delivered it
        browser.get(base + "#/rows/" + id);
        until(() -> waitFor(By.id("row-attempts")).getText().contains("delivered"),
                () -> waitFor(By.id("row-attempts")).getText());
        screenshot("row-attempts");
    }

    /** The Rows page lists a trigger's scheduled rows by the filter in its address; Cancel matching cancels them. */
    @Test
    void theRowsPageListsATriggersRowsAndCancelsThem() throws IOException {
        UUID trigger = trigger("email", "recorder");
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            ids.add(producer.enqueue(new NewRow(APP_A, "email", trigger, Json.createObjectBuilder().add("n", i).build(),
                    OffsetDateTime.now().plusHours(1))));
        }
        browser.get(base.toString());
        signIn(ADMIN, PASSWORD);
        waitFor(By.id("count-dead"));
        browser.get(base + "#/browse?status=scheduled&triggerId=" + trigger);
        WebElement table = waitFor(By.id("rows-table"));
        until(() -> ids.stream()
                .allMatch(id -> !table.findElements(By.cssSelector("a[href='#/rows/" + id + "']")).isEmpty()),
                table::getText);
        assertTrue(table.getText().contains("scheduled"), table.getText());
        assertTrue(!waitFor(By.id("rows-cancel")).isEnabled(), "a cancel is not offered for one status");
        screenshot("rows-scheduled");
        browser.get(base + "#/browse?triggerId=" + trigger);
        until(() -> waitFor(By.id("rows-cancel")).isEnabled(), () -> "Cancel matching stays disabled");
        waitFor(By.id("rows-cancel")).click();
        waitFor(By.id("confirm-ok")).click();
        for (UUID id : ids) {
            until(() -> "cancelled".equals(producer.status(id).status()), () -> id + " not cancelled");
        }
        assertEquals(1, ItDatabase.count(
                "SELECT count(*) FROM admin_audit WHERE action = 'outbox.bulk-cancel' AND filter->>'triggerId' = ?",
                trigger.toString()));
    }

    /** A blocking trigger's lane stopped behind its dead head shows on the dead-letter page; Skip lets it move on. */
    @Test
    void aBlockedLaneIsSkippedFromTheDeadLetterPage() throws IOException {
        UUID trigger = admin
                .createTrigger(APP_A, TriggerDefinition.handler("kv", "failing").maxAttempts(1).onDeadLetter("block"),
                        Call.plain())
                .id();
        String key = "console-lane-" + UUID.randomUUID();
        for (int i = 0; i < 2; i++) {
            producer.enqueue(
                    NewRow.of(APP_A, "kv", trigger, Json.createObjectBuilder().add("n", i).build()).orderingKey(key));
        }
        java.util.function.Supplier<List<JsonObject>> lanes = () -> admin.lanes(APP_A, null).stream()
                .filter(l -> key.equals(l.getString("orderingKey"))).toList();
        until(() -> lanes.get().size() == 1, () -> "lanes: " + lanes.get());
        String head = lanes.get().get(0).getString("headId");

        browser.get(base.toString());
        signIn(ADMIN, PASSWORD);
        waitFor(By.id("count-dead"));
        browser.findElement(By.cssSelector("nav a[data-view='dead-letters']")).click();
        WebElement table = waitFor(By.id("lanes-table"));
        until(() -> table.getText().contains(key) && table.getText().contains("blocked"), table::getText);
        screenshot("lane-blocked");
        table.findElements(By.tagName("tr")).stream().filter(tr -> tr.getText().contains(key)).findFirst().orElseThrow()
                .findElement(By.cssSelector(".lane-skip")).click();
        waitFor(By.id("confirm-ok")).click();
        // the lane moved on: its next row ran, failed too and blocks it now
        until(() -> lanes.get().stream().anyMatch(l -> !head.equals(l.getString("headId"))),
                () -> "lanes: " + lanes.get());
        assertEquals("dead", admin.status(UUID.fromString(head)).status(), "the skipped head stays dead");
        assertEquals(1, ItDatabase.count(
                "SELECT count(*) FROM admin_audit WHERE action = 'lane.skip' AND ?::uuid = ANY (target_ids)", head));
        admin.deleteTrigger(APP_A, trigger);
    }

    @Test
    void anApiErrorIsShownOnThePage() throws IOException {
        browser.get(base.toString());
        signIn(ADMIN, PASSWORD);
        waitFor(By.id("count-dead"));
        browser.get(base + "#/rows/00000000-0000-4000-8000-000000000000");
        WebElement errors = waitFor(By.cssSelector("#errors .error-box"));
        assertTrue(errors.getText().contains("404"), errors.getText());
        assertTrue(errors.getText().contains("not found"), errors.getText());
        screenshot("error-shown");
    }

    private void signIn(String user, String password) {
        WebElement name = waitFor(By.id("signin-user"));
        name.clear();
        name.sendKeys(user);
        WebElement pass = browser.findElement(By.id("signin-password"));
        pass.clear();
        pass.sendKeys(password);
        browser.findElement(By.id("signin-submit")).click();
    }

    private UUID trigger(String kind, String handler) {
        return admin.createTrigger(APP_A, TriggerDefinition.handler(kind, handler).maxAttempts(1), Call.plain()).id();
    }

    private WebElement waitFor(By what) {
        return new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(what));
    }

    private void until(java.util.function.BooleanSupplier condition, java.util.function.Supplier<String> seen) {
        dev.triggeroutbox.testkit.Eventually.until(WAIT, () -> {
            try {
                return condition.getAsBoolean();
            } catch (org.openqa.selenium.StaleElementReferenceException
                    | org.openqa.selenium.NoSuchElementException e) {
                return false; // the page re-rendered between looking and reading
            }
        }, seen);
    }

    private static long number(String text) {
        return Long.parseLong(text.replaceAll("[^0-9]", ""));
    }

    private void screenshot(String name) throws IOException {
        File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), SHOTS.resolve("%02d-%s.png".formatted(++shot, name)),
                StandardCopyOption.REPLACE_EXISTING);
    }
}
