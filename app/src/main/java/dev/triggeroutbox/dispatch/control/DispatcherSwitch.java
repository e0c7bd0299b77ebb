package dev.triggeroutbox.dispatch.control;

import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/**
 * Pauses and resumes dispatching on every node: the switch is one row in the database, which each
 * node reads on every tick (nodes share nothing else). Producers keep writing while paused.
 */
@ApplicationScoped
public class DispatcherSwitch {

    @Inject
    Jdbc jdbc;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean paused() {
        return jdbc.first("SELECT paused FROM dispatcher_state", Jdbc.Binder.NONE, rs -> rs.getBoolean(1))
                .orElse(false);
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public void set(boolean paused, String by) {
        jdbc.update("UPDATE dispatcher_state SET paused = ?, changed_by = ?, changed_at = now()",
                p -> p.bool(paused).text(by));
    }
}
