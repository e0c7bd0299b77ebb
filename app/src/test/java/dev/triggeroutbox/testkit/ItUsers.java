package dev.triggeroutbox.testkit;

import java.io.IOException;
import java.util.UUID;

/**
 * The accounts the integration tests sign in with, added to the test server's realm before it
 * starts, exactly as the README tells operators to (WildFly: add-user.sh; Payara: {@link ItServer}).
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

    static void addAll(ItServer server) throws IOException, InterruptedException {
        server.addUser(ADMIN, PASSWORD, "outbox-admin");
        server.addUser(PRODUCER_A, PASSWORD, "outbox-producer,app:" + APP_A);
        server.addUser(PRODUCER_B, PASSWORD, "outbox-producer,app:" + APP_B);
        server.addUser(NOBODY, PASSWORD, "guests");
    }
}
