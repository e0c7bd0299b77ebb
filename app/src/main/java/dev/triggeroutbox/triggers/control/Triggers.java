package dev.triggeroutbox.triggers.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.ScriptId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.outbox.entity.TriggerId;
import dev.triggeroutbox.targets.entity.KafkaKey;
import dev.triggeroutbox.triggers.entity.Schedule;
import dev.triggeroutbox.triggers.entity.TargetType;
import dev.triggeroutbox.triggers.entity.Trigger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Optional;

/** Registers and manages triggers. Every lookup is scoped to an app: a trigger of another app is not found. */
@ApplicationScoped
@Transactional
public class Triggers {

    @PersistenceContext(unitName = "outbox")
    EntityManager em;

    public Trigger create(AppId app, SourceKind kind, TargetType type, String target, String secret,
            ScriptId script, Integer maxAttempts, boolean enabled) {
        return create(app, kind, type, target, null, secret, script, maxAttempts, enabled);
    }

    /** {@code key}: the record key of a kafka target (null: its default), ignored for the other types. */
    public Trigger create(AppId app, SourceKind kind, TargetType type, String target, KafkaKey key, String secret,
            ScriptId script, Integer maxAttempts, boolean enabled) {
        Trigger trigger = new Trigger(app, kind, type, target, secret);
        trigger.change(kind, type, target, key, script, maxAttempts, enabled);
        em.persist(trigger);
        return trigger;
    }

    /**
     * Sets a trigger's schedule. When it changes, or a disabled cron trigger is enabled again, the
     * next fire is computed afresh from now (fires missed meanwhile are not made up).
     */
    public void schedule(Trigger trigger, Schedule schedule, boolean wasEnabled) {
        boolean changed = trigger.reschedule(schedule);
        if (changed || (trigger.enabled() && !wasEnabled)) {
            em.createNativeQuery("UPDATE triggers SET next_fire_at = NULL WHERE id = ?1")
                    .setParameter(1, trigger.id().value())
                    .executeUpdate();
        }
    }

    /**
     * Gives a webhook trigger a new signing secret. The one it replaces keeps signing beside it for
     * {@code overlapMillis} (0: not at all), measured on the database clock like the signed timestamps;
     * a secret that was itself still in its overlap is dropped, so at most two ever sign. Written in SQL
     * because the expiry is the database's time; the entity is read back afterwards.
     */
    public void rotateSecret(Trigger trigger, String newSecret, long overlapMillis) {
        em.createNativeQuery("""
                UPDATE triggers
                SET previous_secret = CASE WHEN ?1 > 0 THEN secret END,                                  -- 1: overlap
                    previous_secret_expires_at = CASE WHEN ?1 > 0 THEN now() + ?1 * interval '1 millisecond' END,
                    secret = ?2,                                                                         -- 2: new secret
                    updated_at = now()
                WHERE id = ?3                                                                            -- 3: trigger
                """)
                .setParameter(1, overlapMillis)
                .setParameter(2, newSecret)
                .setParameter(3, trigger.id().value())
                .executeUpdate();
        em.refresh(trigger);
    }

    /**
     * Holds or releases a trigger; false when it already was as asked. The claim reads the flag in its own
     * statement, so from the commit on no claim takes the trigger's rows (those in flight finish their attempt).
     */
    public boolean hold(Trigger trigger, boolean held) {
        int changed = em
                .createNativeQuery("UPDATE triggers SET held = ?1, updated_at = now() WHERE id = ?2 AND held <> ?1") // 1 held, 2 trigger
                .setParameter(1, held)
                .setParameter(2, trigger.id().value())
                .executeUpdate();
        em.refresh(trigger);
        return changed == 1;
    }

    /** Writes pending entity changes now, for SQL in the same transaction that reads them. */
    public void flush() {
        em.flush();
    }

    public Optional<Trigger> find(AppId app, TriggerId id) {
        return Optional.ofNullable(em.find(Trigger.class, id.value()))
                .filter(t -> t.appId().equals(app));
    }

    public List<Trigger> list(AppId app) {
        return em.createQuery("SELECT t FROM Trigger t WHERE t.appId = :app ORDER BY t.createdAt, t.id", Trigger.class)
                .setParameter("app", app.value())
                .getResultList();
    }

    public boolean delete(AppId app, TriggerId id) {
        return find(app, id).map(t -> {
            em.remove(t);
            // its lanes go with it: a block would list a lane no row can enter any more (the dead letters stay)
            em.createNativeQuery("DELETE FROM lane_blocks WHERE lane = ?1").setParameter(1, id.value()).executeUpdate();
            return true;
        }).orElse(false);
    }
}
