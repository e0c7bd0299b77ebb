package dev.triggeroutbox.outbox.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.TriggerId;

/** A row named a trigger that is not one of its app's: nothing was written. */
public class UnknownTriggerException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public UnknownTriggerException(TriggerId trigger, AppId app) {
        super("trigger " + trigger + " is not a trigger of app " + app);
    }
}
