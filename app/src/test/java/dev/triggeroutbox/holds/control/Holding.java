package dev.triggeroutbox.holds.control;

import dev.triggeroutbox.platform.Jdbc;
import javax.sql.DataSource;

/** {@link Holds} on a plain data source, for tests of its SQL outside a server. */
public final class Holding {

    private Holding() {
    }

    public static Holds on(DataSource dataSource) {
        Holds holds = new Holds();
        holds.jdbc = new Jdbc(dataSource);
        return holds;
    }
}
