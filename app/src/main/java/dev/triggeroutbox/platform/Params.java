package dev.triggeroutbox.platform;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * Binds a statement's parameters in the order they stand in its SQL, each call the next one, so no code counts
 * indexes: {@code p.uuid(app).text(kind).integer(limit)}. Every method takes null, bound as an SQL NULL of its type.
 */
public final class Params {

    private final PreparedStatement ps;
    private int index = 1;

    Params(PreparedStatement ps) {
        this.ps = ps;
    }

    public Params uuid(UUID value) throws SQLException {
        return set(value, Types.OTHER);
    }

    public Params text(String value) throws SQLException {
        ps.setString(index++, value);
        return this;
    }

    public Params integer(Integer value) throws SQLException {
        return set(value, Types.INTEGER);
    }

    public Params bigint(Long value) throws SQLException {
        return set(value, Types.BIGINT);
    }

    public Params bool(Boolean value) throws SQLException {
        return set(value, Types.BOOLEAN);
    }

    public Params timestamp(OffsetDateTime value) throws SQLException {
        return set(value, Types.TIMESTAMP_WITH_TIMEZONE);
    }

    /** An SQL array of {@code type} (a PostgreSQL type name: {@code uuid}, {@code text}, {@code integer}, …). */
    public Params array(String type, Object[] values) throws SQLException {
        if (values == null) {
            ps.setNull(index++, Types.ARRAY);
        } else {
            ps.setArray(index++, ps.getConnection().createArrayOf(type, values));
        }
        return this;
    }

    private Params set(Object value, int sqlType) throws SQLException {
        ps.setObject(index++, value, sqlType);
        return this;
    }

    /** The parameters of {@code where}, in its order. */
    public Params where(Where where) throws SQLException {
        where.bind(this);
        return this;
    }
}
