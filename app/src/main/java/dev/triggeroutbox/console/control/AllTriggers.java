package dev.triggeroutbox.console.control;

import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.outbox.entity.SourceKind;
import dev.triggeroutbox.triggers.entity.Trigger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.util.ArrayList;
import java.util.List;

/**
 * Triggers of every app, newest first, for the console (the per-app list lives under
 * {@code /apps/{appId}/triggers}). Conditions are added only for the filters given.
 */
@ApplicationScoped
public class AllTriggers {

    /** One page and, when more follow, where the next one starts. */
    public record Page(List<Trigger> items, PageCursor next) {
    }

    @PersistenceContext(unitName = "outbox")
    EntityManager em;

    public Page page(AppId app, SourceKind kind, int limit, PageCursor after) {
        List<String> where = new ArrayList<>();
        List<Object> params = new ArrayList<>();
        if (app != null) {
            params.add(app.value());
            where.add("app_id = ?" + params.size());
        }
        if (kind != null) {
            params.add(kind.wire());
            where.add("source_kind = ?" + params.size());
        }
        if (after != null) {
            params.add(after.at());
            params.add(after.id());
            where.add("(created_at, id) < (?" + (params.size() - 1) + ", ?" + params.size() + ")");
        }
        String sql = "SELECT * FROM triggers" + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                + " ORDER BY created_at DESC, id DESC LIMIT " + (limit + 1);
        Query query = em.createNativeQuery(sql, Trigger.class);
        for (int i = 0; i < params.size(); i++) {
            query.setParameter(i + 1, params.get(i));
        }
        @SuppressWarnings("unchecked")
        List<Trigger> rows = query.getResultList();
        if (rows.size() <= limit) {
            return new Page(rows, null);
        }
        Trigger last = rows.get(limit - 1);
        return new Page(rows.subList(0, limit), new PageCursor(last.createdAt(), last.id().value()));
    }
}
