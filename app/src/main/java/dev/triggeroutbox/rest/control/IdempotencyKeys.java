package dev.triggeroutbox.rest.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.platform.HousekeepingJob;
import dev.triggeroutbox.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code Idempotency-Key} on POST: the first answer is stored with the rows it created, in the same
 * transaction, and replayed for every retry. Concurrent requests with one key serialize on the key
 * row's unique index: the second waits for the first to commit and then replays its answer, so a
 * key never makes two rows. A key reused for a different request is refused (422).
 */
@ApplicationScoped
public class IdempotencyKeys implements HousekeepingJob {

    /** Once a minute: keys are kept for hours. */
    static final long PRUNE_EVERY_MILLIS = 60_000;
    /** Keys per delete: one short transaction, whatever the backlog. */
    static final int PRUNE_CHUNK = 10_000;

    /** What a POST answered: status, Location (may be null) and the JSON body. */
    /**
     * An answer; {@code replayed} when it is the stored answer of an earlier request with the same key,
     * said by the header {@value #REPLAYED} (so clients, and the audit, can tell a repeat from a new change).
     */
    public record Answer(int status, String location, String body, boolean replayed) {
        public Answer(int status, String location, String body) {
            this(status, location, body, false);
        }

        public Response toResponse() {
            Response.ResponseBuilder r = Response.status(status).type("application/json").entity(body);
            if (location != null) {
                r.header("Location", location);
            }
            if (replayed) {
                r.header(REPLAYED, "true");
            }
            return r.build();
        }
    }

    /** The header on an answer given again for a repeated {@code Idempotency-Key}. */
    public static final String REPLAYED = "Idempotent-Replayed";

    @Inject
    Jdbc jdbc;

    /**
     * Hours a key replays its first answer. 24 covers a client's retries across a day's outage (the
     * usual promise of idempotency keys); after it, the same key makes a new request. At least 1.
     */
    @Inject
    @ConfigProperty(name = "outbox.idempotency.retention-hours", defaultValue = "24")
    int retentionHours;

    /**
     * Runs {@code work} once per (caller, key): the first call runs it and stores its answer, later
     * calls get the stored answer. Without a key, just runs it. Runs inside the transaction that
     * writes the request's rows: the caller's, or one of its own (a failure of {@code work} rolls it back).
     */
    @Transactional(value = Transactional.TxType.REQUIRED, rollbackOn = Exception.class)
    public Answer once(String principal, String key, String method, String path, String body, Supplier<Answer> work) {
        return once(principal, key, method, path, body, work, UnaryOperator.identity());
    }

    /**
     * Like {@link #once(String, String, String, String, String, Supplier)}, but what is stored (and
     * answered to every repeat) is {@code forRepeats} of the first answer: a secret shown once stays
     * out of the stored answer.
     */
    @Transactional(value = Transactional.TxType.MANDATORY)
    public Answer once(String principal, String key, String method, String path, String body, Supplier<Answer> work,
            UnaryOperator<Answer> forRepeats) {
        if (key == null) {
            return work.get();
        }
        if (key.isEmpty() || key.length() > 255 || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw OutboxRefusedException.invalid("Idempotency-Key", "must be 1 to 255 visible ASCII characters");
        }
        String fingerprint = method + " " + path + " " + sha256(body);
        String owner = principal == null ? "" : principal;
        return jdbc.inConnection(con -> {
            if (!claim(con, owner, key, fingerprint)) {
                return replay(con, owner, key, fingerprint);
            }
            Answer answer = work.get();
            store(con, owner, key, forRepeats.apply(answer));
            return answer;
        });
    }

    private static boolean claim(Connection con, String owner, String key, String fingerprint) {
        return Jdbc.update(con, """
                INSERT INTO idempotency_keys (principal, key, fingerprint) VALUES (?, ?, ?)
                ON CONFLICT (principal, key) DO NOTHING
                """, p -> p.text(owner).text(key).text(fingerprint)) == 1;
    }

    private static Answer replay(Connection con, String owner, String key, String fingerprint) {
        Optional<Stored> stored = Jdbc.first(con,
                "SELECT fingerprint, status, location, body FROM idempotency_keys WHERE principal = ? AND key = ?",
                p -> p.text(owner).text(key),
                rs -> new Stored(rs.getString("fingerprint"), (Integer) rs.getObject("status"),
                        rs.getString("location"), rs.getString("body")));
        if (stored.isEmpty() || stored.get().status() == null) {
            // cannot happen after the conflict (the first request committed with its answer); be safe
            throw OutboxRefusedException.conflict("idempotency-conflict", "Request in progress",
                    "a request with this Idempotency-Key is still being processed; retry later");
        }
        if (!fingerprint.equals(stored.get().fingerprint())) {
            throw OutboxRefusedException.unprocessable("idempotency-key-reused",
                    "this Idempotency-Key was used for a different request");
        }
        return new Answer(stored.get().status(), stored.get().location(), stored.get().body(), true);
    }

    /** A key's row as stored: {@code status} null while its first request is still running. */
    private record Stored(String fingerprint, Integer status, String location, String body) {
    }

    private static void store(Connection con, String owner, String key, Answer answer) {
        Jdbc.update(con,
                "UPDATE idempotency_keys SET status = ?, location = ?, body = ? WHERE principal = ? AND key = ?",
                p -> p.integer(answer.status()).text(answer.location()).text(answer.body()).text(owner).text(key));
    }

    /** Keys older than the retention go, a chunk at a time. */
    @Override
    public Pruning pruning() {
        return new Pruning("idempotency keys", "outbox.idempotency.retention-hours", retentionHours, PRUNE_EVERY_MILLIS, """
                DELETE FROM idempotency_keys
                WHERE ctid = ANY (ARRAY(
                    SELECT ctid FROM idempotency_keys
                    WHERE created_at < now() - ? * interval '1 hour'     -- 1: retention
                    LIMIT ?))                                            -- 2: chunk
                """, PRUNE_CHUNK);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

}
