package dev.triggeroutbox.health.control;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.dispatch.control.DispatchSettings;
import dev.triggeroutbox.platform.Jdbc;
import dev.triggeroutbox.platform.Reused;
import dev.triggeroutbox.platform.StoreException;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.TimeUnit;

/**
 * Whether this node can do its job. Ready: the database answers and its schema is at least the
 * version this WAR needs (a node must not take traffic against a schema it does not know). Live: the
 * dispatcher timer still ticks (a node whose timer stopped delivers nothing and should be restarted).
 */
@ApplicationScoped
public class HealthChecks {

    /** The newest migration in db/migration; readiness requires the database to have it. */
    static final int SCHEMA_VERSION = 21;
    /** Missed ticks before the dispatcher counts as stalled. */
    static final int STALLED_AFTER_TICKS = 5;
    /**
     * How long one database check answers for every probe. The health paths are open to anyone, so each
     * uncached probe would cost a pooled connection and a query: a flood of probes could empty the pool
     * the dispatcher needs. One second keeps a load balancer's view fresh (probes come every few seconds)
     * while a flood costs one query per second.
     */
    static final long DATABASE_CHECK_TTL_MILLIS = 1_000;

    /** One check's outcome, in the shape MicroProfile Health uses. */
    public record Check(String name, boolean up, JsonObject data) {
        public JsonObject json() {
            return Jsons.object().add("name", name).add("status", up ? "UP" : "DOWN").add("data", data).build();
        }
    }

    @Inject
    Jdbc jdbc;

    @Inject
    DispatchSettings settings;

    @Inject
    DispatchCounters counters;

    private Reused<Check, RuntimeException> cachedDatabase;

    @PostConstruct
    void cache() {
        cachedDatabase = new Reused<>(this::queryDatabase, System::nanoTime,
                TimeUnit.MILLISECONDS.toNanos(DATABASE_CHECK_TTL_MILLIS));
    }

    /** The database check, as measured at most {@link #DATABASE_CHECK_TTL_MILLIS} ago. */
    public Check database() {
        return cachedDatabase.get();
    }

    private Check queryDatabase() {
        JsonObjectBuilder data = Jsons.object();
        try {
            // a statement of its own rather than Jdbc.first: a probe must answer, so the query has a timeout
            return jdbc.inConnection(con -> {
                try (PreparedStatement ps = con.prepareStatement("""
                        SELECT max(version::int) FROM outbox_schema_history WHERE success AND version IS NOT NULL""")) {
                    ps.setQueryTimeout(5);
                    try (ResultSet rs = ps.executeQuery()) {
                        int version = rs.next() ? rs.getInt(1) : 0;
                        data.add("schemaVersion", version).add("requiredSchemaVersion", SCHEMA_VERSION);
                        return new Check("database", version >= SCHEMA_VERSION, data.build());
                    }
                }
            });
        } catch (StoreException e) {
            // the reason goes to the operator's monitoring, without SQL or connection details
            return new Check("database", false, data.add("error", "database unreachable or schema missing").build());
        }
    }

    public Check dispatcher() {
        return dispatcher(settings.enabled(), counters.millisSinceLastTick(), settings.pollIntervalMillis());
    }

    /**
     * Liveness from the last tick's age (monotonic; -1: none yet): DOWN before the first tick and after
     * {@link #STALLED_AFTER_TICKS} missed polls.
     */
    static Check dispatcher(boolean enabled, long age, long pollIntervalMillis) {
        JsonObjectBuilder data = Jsons.object(); // no node name: this answer is public
        if (!enabled) {
            return new Check("dispatcher", true, data.add("enabled", false).build());
        }
        boolean ticking = age >= 0 && age <= STALLED_AFTER_TICKS * pollIntervalMillis + 1_000;
        data.add("enabled", true).add("lastTickAgeMillis", age).add("pollIntervalMillis", pollIntervalMillis);
        return new Check("dispatcher", ticking, data.build());
    }
}
