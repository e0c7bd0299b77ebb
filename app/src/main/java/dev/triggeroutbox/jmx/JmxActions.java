package dev.triggeroutbox.jmx;

import dev.triggeroutbox.console.control.AuditLog;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.holds.control.Holds;
import dev.triggeroutbox.outbox.control.CommitWakeup;
import dev.triggeroutbox.outbox.entity.AppId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.OptionalInt;

/** What JMX operations change (the dispatcher switch, app holds), each in one transaction with its audit record, as the admin API does. */
@ApplicationScoped
public class JmxActions {

    /** Who the audit record names for a JMX operation: the server authenticated its management user, not us. */
    static final String PRINCIPAL = "jmx";

    @Inject
    DispatcherSwitch dispatcherSwitch;

    @Inject
    AuditLog audit;

    @Inject
    Holds holds;

    @Inject
    CommitWakeup wakeup;

    /** Puts an app on hold, audited as {@code POST /admin/apps/{appId}/hold}; false when it was on hold already. */
    @Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
    public boolean holdApp(AppId app) {
        boolean held = holds.holdApp(app, PRINCIPAL);
        if (held) {
            audit.record(PRINCIPAL, AuditLog.APP_HOLD, List.of(app.value()), null, 1);
        }
        return held;
    }

    /** Takes an app off hold, audited as {@code POST /admin/apps/{appId}/release}: the rows put back (0 when it was not held). */
    @Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
    public int releaseApp(AppId app) {
        OptionalInt rows = holds.releaseApp(app);
        if (rows.isEmpty()) {
            return 0;
        }
        audit.record(PRINCIPAL, AuditLog.APP_RELEASE, List.of(app.value()), null, rows.getAsInt());
        wakeup.revived(rows.getAsInt());
        return rows.getAsInt();
    }

    public List<String> heldApps() {
        return holds.appHolds(null).stream().map(h -> h.appId().toString()).toList();
    }

    @Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
    public void switchDispatching(boolean paused) {
        dispatcherSwitch.set(paused, PRINCIPAL);
        audit.record(PRINCIPAL, paused ? AuditLog.PAUSE : AuditLog.RESUME, List.of(), null, 0);
    }
}
