package dev.triggeroutbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Drain (c), the floor: one JDBC connection in a loop, each turn one SKIP LOCKED claim of a batch
 * and one DELETE of the claimed ids (each its own auto-committed transaction, as the dispatcher's
 * claim and finish are), nothing else: no handler, no history, no server.
 */
final class RawFloorDrain {

    private RawFloorDrain() {
    }

    /** Drains the outbox; answers rows deleted and the seconds it took. */
    static Results.Throughput run(Database db, int batchSize) throws SQLException {
        try (Connection con = db.connect();
                PreparedStatement claim = con.prepareStatement(ClaimSql.FLOOR);
                PreparedStatement delete = con.prepareStatement(ClaimSql.FLOOR_DELETE)) {
            long rows = 0;
            long start = System.nanoTime();
            while (true) {
                claim.setInt(1, batchSize);
                claim.setObject(2, UUID.randomUUID());
                claim.setString(3, "bench-floor");
                claim.setLong(4, ClaimSql.LEASE_MILLIS);
                List<UUID> ids = new ArrayList<>(batchSize);
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1, UUID.class));
                        rs.getString(2);
                    }
                }
                if (ids.isEmpty()) {
                    break;
                }
                delete.setArray(1, con.createArrayOf("uuid", ids.toArray()));
                rows += delete.executeUpdate();
            }
            return new Results.Throughput("raw SQL floor", rows, (System.nanoTime() - start) / 1e9);
        }
    }
}
