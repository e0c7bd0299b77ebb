package dev.triggeroutbox.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The one way control classes run SQL (after db-scheduler's {@code JdbcRunner}): a statement, its parameters bound
 * in order ({@link Params}), a mapper per row, and {@link StoreException} instead of {@code SQLException}.
 *
 * <p>Each call takes its connection from the outbox's DataSource and closes it, exactly as the code it replaced did:
 * inside a container-managed transaction the server hands out the transaction's enlisted connection, so a statement
 * run here commits or rolls back with the caller's transaction. Several statements that must share one connection
 * (a lock, then a write) run in {@link #inConnection}, with the static methods that take that connection.
 */
@ApplicationScoped
public class Jdbc {

    /** Binds a statement's parameters. */
    @FunctionalInterface
    public interface Binder {
        Binder NONE = p -> {};

        void bind(Params p) throws SQLException;
    }

    /** Makes one value of a result row; it reads the row's columns, never moves the cursor. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Work on one connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection con) throws SQLException;
    }

    @Inject
    DataSource dataSource;

    protected Jdbc() {
        // for CDI
    }

    public Jdbc(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Every row of the answer, each as {@code mapper} makes it. */
    public <T> List<T> list(String sql, Binder binder, RowMapper<T> mapper) {
        return inConnection(con -> list(con, sql, binder, mapper));
    }

    /** The answer's first row, if there is one (empty too when {@code mapper} makes null of it). */
    public <T> Optional<T> first(String sql, Binder binder, RowMapper<T> mapper) {
        return inConnection(con -> first(con, sql, binder, mapper));
    }

    /** Runs an INSERT, UPDATE or DELETE without RETURNING; answers the rows it changed. */
    public int update(String sql, Binder binder) {
        return inConnection(con -> update(con, sql, binder));
    }

    /** {@code work} on one connection of the DataSource (the transaction's, inside one), closed after. */
    public <T> T inConnection(Work<T> work) {
        try (Connection con = dataSource.getConnection()) {
            return work.run(con);
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    public static <T> List<T> list(Connection con, String sql, Binder binder, RowMapper<T> mapper) {
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            binder.bind(new Params(ps));
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(mapper.map(rs));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    public static <T> Optional<T> first(Connection con, String sql, Binder binder, RowMapper<T> mapper) {
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            binder.bind(new Params(ps));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.ofNullable(mapper.map(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    public static int update(Connection con, String sql, Binder binder) {
        try (PreparedStatement ps = con.prepareStatement(sql)) {
            binder.bind(new Params(ps));
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }
}
