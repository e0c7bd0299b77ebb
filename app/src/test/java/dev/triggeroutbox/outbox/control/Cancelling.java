package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.platform.Jdbc;
import javax.sql.DataSource;

/** Cancellations over a plain DataSource, for tests of the SQL without a server. */
public final class Cancelling {

    private Cancelling() {
    }

    public static Cancellations on(DataSource dataSource) {
        Cancellations cancellations = new Cancellations();
        cancellations.jdbc = new Jdbc(dataSource);
        return cancellations;
    }
}
