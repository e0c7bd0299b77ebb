package dev.triggeroutbox.support;

import java.io.IOException;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The accounts the integration tests sign in with, added to the test server's application realm
 * with add-user.sh before it starts (exactly as the README tells operators to).
 */
public final class ItUsers {

    public static final UUID APP_A = UUID.fromString("0a0a0a0a-0000-4000-8000-00000000000a");
    public static final UUID APP_B = UUID.fromString("0b0b0b0b-0000-4000-8000-00000000000b");
    public static final String PASSWORD = "it-Secret-1";

    public static final String ADMIN = "it-admin";
    public static final String PRODUCER_A = "it-producer-a";
    public static final String PRODUCER_B = "it-producer-b";
    /** Signed in, but with no outbox role. */
    public static final String NOBODY = "it-nobody";

    private ItUsers() {
    }

    static void addAll(Path jbossHome) throws IOException, InterruptedException {
        add(jbossHome, ADMIN, "outbox-admin");
        add(jbossHome, PRODUCER_A, "outbox-producer,app:" + APP_A);
        add(jbossHome, PRODUCER_B, "outbox-producer,app:" + APP_B);
        add(jbossHome, NOBODY, "guests");
    }

    private static void add(Path jbossHome, String user, String groups) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(jbossHome.resolve("bin/add-user.sh").toString(), "-a", "-s",
                "-u", user, "-p", PASSWORD, "-g", groups).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException("add-user.sh " + user + " failed: " + out);
        }
    }
}
