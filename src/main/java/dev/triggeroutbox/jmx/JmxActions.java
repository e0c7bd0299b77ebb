package dev.triggeroutbox.jmx;

import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.SQLException;
import java.util.List;

/** What JMX operations change, each in one transaction with its audit record, as the admin API does. */
@ApplicationScoped
public class JmxActions {

    /** Who the audit record names for a JMX operation: the server authenticated its management user, not us. */
    static final String PRINCIPAL = "jmx";

    @Inject
    DispatcherSwitch dispatcherSwitch;

    @Inject
    AuditLog audit;

    @Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
    public void switchDispatching(boolean paused) throws SQLException {
        dispatcherSwitch.set(paused, PRINCIPAL);
        audit.record(PRINCIPAL, paused ? AuditLog.PAUSE : AuditLog.RESUME, List.of(), null, 0);
    }
}
