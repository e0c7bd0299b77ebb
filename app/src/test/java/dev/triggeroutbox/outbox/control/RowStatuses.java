package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.platform.Jdbc;
import javax.sql.DataSource;

/** A RowStatus over a plain DataSource, for tests of the SQL without a server. */
public final class RowStatuses {

    private RowStatuses() {
    }

    public static RowStatus on(DataSource dataSource) {
        RowStatus status = new RowStatus();
        status.jdbc = new Jdbc(dataSource);
        return status;
    }
}
