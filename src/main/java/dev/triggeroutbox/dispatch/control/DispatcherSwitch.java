package dev.triggeroutbox.dispatch.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Pauses and resumes dispatching on every node: the switch is one row in the database, which each
 * node reads on every tick (nodes share nothing else). Producers keep writing while paused.
 */
@ApplicationScoped
public class DispatcherSwitch {

    @Inject
    DataSource dataSource;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean paused() throws SQLException {
        try (Connection con = dataSource.getConnection();
                PreparedStatement ps = con.prepareStatement("SELECT paused FROM dispatcher_state");
                ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public void set(boolean paused, String by) throws SQLException {
        try (Connection con = dataSource.getConnection();
                PreparedStatement ps = con.prepareStatement(
                        "UPDATE dispatcher_state SET paused = ?, changed_by = ?, changed_at = now()")) { // 1, 2
            ps.setBoolean(1, paused);
            ps.setString(2, by);
            ps.executeUpdate();
        }
    }
}
