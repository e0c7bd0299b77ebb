package dev.triggeroutbox.platform;

import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A WHERE condition made of optional filters: each typed method adds its condition (one {@code ?}) only when its
 * value is given, and binds that value itself, so a read with six optional filters neither writes
 * {@code ?::T IS NULL OR …} pairs nor counts indexes. {@link #sql()} is the conjunction ({@code TRUE} when empty);
 * {@link Params#where} binds it where the condition stands in the statement.
 */
public final class Where {

    private final List<String> conditions = new ArrayList<>();
    private final List<Jdbc.Binder> binders = new ArrayList<>();

    public Where uuid(String condition, UUID value) {
        return and(value != null, condition, p -> p.uuid(value));
    }

    public Where text(String condition, String value) {
        return and(value != null, condition, p -> p.text(value));
    }

    public Where integer(String condition, Integer value) {
        return and(value != null, condition, p -> p.integer(value));
    }

    public Where timestamp(String condition, OffsetDateTime value) {
        return and(value != null, condition, p -> p.timestamp(value));
    }

    /** {@code condition}, whose parameters {@code binder} binds, only when {@code given}. */
    public Where and(boolean given, String condition, Jdbc.Binder binder) {
        if (given) {
            conditions.add(condition);
            binders.add(binder);
        }
        return this;
    }

    /** {@code condition}, which has no parameters, always. */
    public Where and(String condition) {
        return and(true, condition, p -> {});
    }

    public boolean isEmpty() {
        return conditions.isEmpty();
    }

    public String sql() {
        return conditions.isEmpty() ? "TRUE" : "(" + String.join(") AND (", conditions) + ")";
    }

    void bind(Params p) throws SQLException {
        for (Jdbc.Binder b : binders) {
            b.bind(p);
        }
    }
}
