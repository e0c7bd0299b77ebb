package dev.triggeroutbox.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.junit5.EmbeddedPostgresExtension;
import io.zonky.test.db.postgres.junit5.SingleInstancePostgresExtension;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The JDBC helper on a real PostgreSQL: each parameter type bound and read back (NULL too), a mapper per row,
 * the optional filters with and without each of them, and a failing statement surfacing as a {@link StoreException}
 * that keeps the driver's exception.
 */
class JdbcTest {

    @RegisterExtension
    static final SingleInstancePostgresExtension POSTGRES = EmbeddedPostgresExtension.singleInstance();

    private static final UUID APP = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final OffsetDateTime AT = OffsetDateTime.of(2024, 5, 1, 12, 0, 0, 0, ZoneOffset.UTC);

    /** One row of the test table. */
    record Row(int n, UUID app, String kind, Integer depth, Long bytes, Boolean on, OffsetDateTime at) {
    }

    /** A fresh table of three rows, on the database as the test starts. */
    private static Jdbc jdbc() {
        Jdbc jdbc = new Jdbc(POSTGRES.getEmbeddedPostgres().getPostgresDatabase());
        jdbc.update("DROP TABLE IF EXISTS t", Jdbc.Binder.NONE);
        jdbc.update(
                "CREATE TABLE t (n int PRIMARY KEY, app uuid, kind text, depth int, bytes bigint, on_ boolean, at timestamptz)",
                Jdbc.Binder.NONE);
        insert(jdbc, new Row(1, APP, "http", 0, 10L, true, AT));
        insert(jdbc, new Row(2, APP, "cron", 1, 20L, false, AT.plusHours(1)));
        insert(jdbc, new Row(3, UUID.randomUUID(), "http", 2, 30L, true, AT.plusHours(2)));
        return jdbc;
    }

    private static void insert(Jdbc jdbc, Row r) {
        assertEquals(1, jdbc.update("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)", p -> p.integer(r.n()).uuid(r.app())
                .text(r.kind()).integer(r.depth()).bigint(r.bytes()).bool(r.on()).timestamp(r.at())));
    }

    private static Row row(java.sql.ResultSet rs) throws SQLException {
        return new Row(rs.getInt("n"), rs.getObject("app", UUID.class), rs.getString("kind"),
                (Integer) rs.getObject("depth"),
                (Long) rs.getObject("bytes"), (Boolean) rs.getObject("on_"), rs.getObject("at", OffsetDateTime.class));
    }

    private static List<Integer> numbers(Jdbc jdbc, Where where) {
        return jdbc.list("SELECT n FROM t WHERE " + where.sql() + " ORDER BY n", p -> p.where(where),
                rs -> rs.getInt(1));
    }

    @Test
    void eachTypeIsBoundAndReadBack() {
        Jdbc jdbc = jdbc();

        Row first = jdbc.first("SELECT * FROM t WHERE n = ?", p -> p.integer(1), JdbcTest::row).orElseThrow();

        assertEquals(new Row(1, APP, "http", 0, 10L, true, AT), first);
    }

    @Test
    void nullOfEachTypeIsAnSqlNull() {
        Jdbc jdbc = jdbc();
        insert(jdbc, new Row(4, null, null, null, null, null, null));

        Row blank = jdbc.first("SELECT * FROM t WHERE n = ?", p -> p.integer(4), JdbcTest::row).orElseThrow();

        assertEquals(new Row(4, null, null, null, null, null, null), blank);
        assertEquals(1, jdbc.first("""
                SELECT count(*) FROM t
                WHERE app IS NULL AND kind IS NULL AND depth IS NULL AND bytes IS NULL AND on_ IS NULL AND at IS NULL
                  AND ?::uuid IS NULL AND ?::text IS NULL AND ?::int IS NULL AND ?::bigint IS NULL AND ?::boolean IS NULL
                  AND ?::timestamptz IS NULL AND ?::int[] IS NULL""",
                p -> p.uuid(null).text(null).integer(null).bigint(null).bool(null).timestamp(null).array("integer",
                        null),
                rs -> rs.getLong(1)).orElseThrow());
    }

    @Test
    void anArrayIsBoundAsOneParameter() {
        Jdbc jdbc = jdbc();

        List<Integer> found = jdbc.list("SELECT n FROM t WHERE n = ANY (?) AND kind = ? ORDER BY n",
                p -> p.array("integer", new Integer[] {1, 3, 4}).text("http"), rs -> rs.getInt(1));

        assertEquals(List.of(1, 3), found, "the parameter after the array is the second");
    }

    @Test
    void theMapperMakesOneValuePerRowInTheAnswersOrder() {
        Jdbc jdbc = jdbc();

        List<String> rows = jdbc.list("SELECT n, kind FROM t ORDER BY n DESC", Jdbc.Binder.NONE,
                rs -> rs.getInt("n") + ":" + rs.getString("kind"));

        assertEquals(List.of("3:http", "2:cron", "1:http"), rows);
        assertEquals(Optional.empty(),
                jdbc.first("SELECT n FROM t WHERE n = ?", p -> p.integer(99), rs -> rs.getInt(1)));
        assertEquals(Optional.empty(),
                jdbc.first("SELECT NULL::int", Jdbc.Binder.NONE, rs -> (Integer) rs.getObject(1)),
                "a row the mapper makes null of");
    }

    @Test
    void aFilterWithoutValuesMatchesEverything() {
        Jdbc jdbc = jdbc();
        Where none = new Where().uuid("app = ?", null).text("kind = ?", null).integer("depth >= ?", null)
                .timestamp("at > ?", null);

        assertTrue(none.isEmpty());
        assertEquals("TRUE", none.sql());
        assertEquals(List.of(1, 2, 3), numbers(jdbc, none));
    }

    @Test
    void eachGivenFilterNarrowsAndBindsItsOwnValue() {
        Jdbc jdbc = jdbc();

        assertEquals(List.of(1, 2), numbers(jdbc, new Where().uuid("app = ?", APP)));
        assertEquals(List.of(1, 3), numbers(jdbc, new Where().text("kind = ?", "http")));
        assertEquals(List.of(2, 3), numbers(jdbc, new Where().integer("depth >= ?", 1)));
        assertEquals(List.of(3), numbers(jdbc, new Where().timestamp("at > ?", AT.plusMinutes(90))));
        assertEquals(List.of(1),
                numbers(jdbc, new Where().uuid("app = ?", APP).text("kind = ?", null).text("kind = ?", "http")));
        assertEquals(List.of(2),
                numbers(jdbc, new Where().uuid("app = ?", null).and("NOT on_").integer("depth >= ?", 1)));
    }

    @Test
    void aConditionWithSeveralParametersIsAddedOnlyWhenGiven() {
        Jdbc jdbc = jdbc();
        Where after = new Where().and(true, "(at, n) > (?, ?)", p -> p.timestamp(AT).integer(1));
        Where not = new Where().and(false, "(at, n) > (?, ?)", p -> p.timestamp(AT).integer(1));

        assertEquals(List.of(2, 3), numbers(jdbc, after));
        assertEquals(List.of(1, 2, 3), numbers(jdbc, not));
        assertFalse(after.isEmpty());
        assertEquals(List.of(3), jdbc.list("SELECT n FROM t WHERE " + after.sql() + " AND n <> ? ORDER BY n",
                p -> p.where(after).integer(2), rs -> rs.getInt(1)), "the filter's parameters come before the next");
    }

    @Test
    void severalStatementsShareOneConnection() {
        Jdbc jdbc = jdbc();

        long seen = jdbc.inConnection(con -> {
            Jdbc.update(con, "CREATE TEMPORARY TABLE only_here (n int)", Jdbc.Binder.NONE);
            Jdbc.update(con, "INSERT INTO only_here VALUES (?)", p -> p.integer(7));
            return Jdbc.first(con, "SELECT sum(n) FROM only_here", Jdbc.Binder.NONE, rs -> rs.getLong(1)).orElseThrow();
        });

        assertEquals(7, seen, "a temporary table lives only on its own connection");
    }

    @Test
    void aFailingStatementIsAStoreExceptionThatKeepsTheDriversException() {
        Jdbc jdbc = jdbc();

        StoreException e = assertThrows(StoreException.class,
                () -> jdbc.update("INSERT INTO t (n) VALUES (?)", p -> p.integer(1)));

        SQLException cause = assertInstanceOf(SQLException.class, e.getCause());
        assertEquals("23505", cause.getSQLState(), "unique violation");
        assertEquals(cause, e.sqlException());
        StoreException missing = assertThrows(StoreException.class,
                () -> jdbc.list("SELECT * FROM no_such_table", Jdbc.Binder.NONE, rs -> 1));
        assertEquals("42P01", missing.sqlException().getSQLState());
    }
}
