package dev.triggeroutbox.replies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.NewOutboxRow;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.replies.control.InvokeRequests;
import dev.triggeroutbox.testkit.Deployments;
import dev.triggeroutbox.testkit.Sql;
import jakarta.inject.Inject;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An invoke whose trigger is deleted after {@code InvokeResource} found it and before its row is
 * written: the step after the lookup, called in-container with a trigger that is gone, so the race
 * is taken every time instead of by luck.
 */
@ExtendWith(ArquillianExtension.class)
class InvokeRaceIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.outboxWithTestHandlers();
    }

    @Inject
    InvokeRequests requests;

    @Test
    void aTriggerDeletedBetweenLookupAndEnqueueIsNotFoundAndWritesNothing() {
        UUID app = UUID.randomUUID();
        TriggerId gone = new TriggerId(UUID.randomUUID());
        NewOutboxRow row = NewOutboxRow.to(new AppId(app), SourceKind.HTTP, gone, "{}");
        OutboxRefusedException e = assertThrows(OutboxRefusedException.class,
                () -> requests.start("it-producer-a", "race-" + app, "/outbox/api/v1/x", "{}", row,
                        "/outbox/api/v1/replies"));
        assertEquals(OutboxRefusedException.Reason.NOT_FOUND, e.reason(), e.getMessage());
        assertEquals(0, Sql.count("SELECT count(*) FROM outbox WHERE app_id = ?", app));
        assertEquals(0, Sql.count("SELECT count(*) FROM idempotency_keys WHERE key = ?", "race-" + app),
                "the key is not kept");
    }
}
