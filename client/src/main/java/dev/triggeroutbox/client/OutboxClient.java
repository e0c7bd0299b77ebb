package dev.triggeroutbox.client;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.Response;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A typed client of the outbox's REST API ({@code /outbox/api/v1}) on plain Jakarta REST: the producer calls
 * (publish, batches, enqueue, status, cancel, invoke) and the admin calls users script most (triggers, dead
 * letters, stuck lanes, pause). Bodies are records; a refusal is a {@link ProblemException} with the problem's type
 * and fields; {@link Call} adds an {@code Idempotency-Key} and a W3C trace context. Needs a Jakarta REST client and
 * a JSON-P implementation on the classpath (every Jakarta EE server has both).
 */
public final class OutboxClient implements AutoCloseable {

    /**
     * One event to publish: fanned out to every enabled trigger of its app and source kind. Rows with the same
     * {@code orderingKey} (1–200 characters) are delivered one at a time, in the order written, per trigger.
     */
    public record Event(String sourceKind, JsonValue payload, UUID rootExecutionId, Integer triggerDepth,
            OffsetDateTime deliverAt,
            String orderingKey) {

        public Event {
            Objects.requireNonNull(sourceKind, "sourceKind");
            Objects.requireNonNull(payload, "payload");
        }

        /** An event without an ordering key. */
        public Event(String sourceKind, JsonValue payload, UUID rootExecutionId, Integer triggerDepth,
                OffsetDateTime deliverAt) {
            this(sourceKind, payload, rootExecutionId, triggerDepth, deliverAt, null);
        }

        /** An event due at once, starting its own cascade. */
        public static Event of(String sourceKind, JsonValue payload) {
            return new Event(sourceKind, payload, null, null, null, null);
        }

        /** The same event, delivered no earlier than {@code at}. */
        public Event deliverAt(OffsetDateTime at) {
            return new Event(sourceKind, payload, rootExecutionId, triggerDepth, at, orderingKey);
        }

        /** The same event in the ordered lane {@code key} of each trigger it goes to. */
        public Event orderingKey(String key) {
            return new Event(sourceKind, payload, rootExecutionId, triggerDepth, deliverAt, key);
        }

        JsonObjectBuilder json() {
            JsonObjectBuilder b = Json.createObjectBuilder().add("sourceKind", sourceKind).add("payload", payload);
            addIf(b, "rootExecutionId", rootExecutionId);
            if (triggerDepth != null) {
                b.add("triggerDepth", triggerDepth);
            }
            addIf(b, "deliverAt", deliverAt);
            addIf(b, "orderingKey", orderingKey);
            return b;
        }
    }

    /**
     * One row to enqueue for one trigger of an app (or for no trigger, where the source kind allows it); an
     * {@code orderingKey} puts it in that trigger's (or the app's) ordered lane. A row written as part of a cascade
     * names its {@code rootExecutionId} and {@code triggerDepth} (null: a cascade of its own, depth 0).
     */
    public record NewRow(UUID appId, String sourceKind, UUID triggerId, JsonValue payload, OffsetDateTime deliverAt,
            String orderingKey,
            UUID rootExecutionId, Integer triggerDepth) {

        public NewRow {
            Objects.requireNonNull(appId, "appId");
            Objects.requireNonNull(sourceKind, "sourceKind");
            Objects.requireNonNull(payload, "payload");
        }

        /** A row of a cascade of its own. */
        public NewRow(UUID appId, String sourceKind, UUID triggerId, JsonValue payload, OffsetDateTime deliverAt,
                String orderingKey) {
            this(appId, sourceKind, triggerId, payload, deliverAt, orderingKey, null, null);
        }

        /** A row without an ordering key. */
        public NewRow(UUID appId, String sourceKind, UUID triggerId, JsonValue payload, OffsetDateTime deliverAt) {
            this(appId, sourceKind, triggerId, payload, deliverAt, null);
        }

        public static NewRow of(UUID appId, String sourceKind, UUID triggerId, JsonValue payload) {
            return new NewRow(appId, sourceKind, triggerId, payload, null, null);
        }

        /** The same row in the ordered lane {@code key}. */
        public NewRow orderingKey(String key) {
            return new NewRow(appId, sourceKind, triggerId, payload, deliverAt, key, rootExecutionId, triggerDepth);
        }

        /** The same row in the cascade {@code root}, {@code depth} steps from its start. */
        public NewRow cascade(UUID root, int depth) {
            return new NewRow(appId, sourceKind, triggerId, payload, deliverAt, orderingKey, root, depth);
        }

        JsonObjectBuilder json() {
            JsonObjectBuilder b = Json.createObjectBuilder().add("appId", appId.toString())
                    .add("sourceKind", sourceKind)
                    .add("payload", payload);
            addIf(b, "triggerId", triggerId);
            addIf(b, "deliverAt", deliverAt);
            addIf(b, "orderingKey", orderingKey);
            addIf(b, "rootExecutionId", rootExecutionId);
            if (triggerDepth != null) {
                b.add("triggerDepth", triggerDepth);
            }
            return b;
        }
    }

    /** A row written: its id, its trigger (null for a row without one), and in a batch its event's position from 0. */
    public record Written(Integer event, UUID id, UUID triggerId) {
    }

    /**
     * Where a row stands ({@code pending, scheduled, in_flight, delivered, dead, cancelled}), with the whole answer;
     * {@code orderingKey} while it waits or is dead (a finished row's history keeps none).
     */
    public record RowStatus(UUID id, String status, int attemptCount, String lastError, String traceparent,
            String orderingKey,
            JsonObject json) {

        /** A status without an ordering key. */
        public RowStatus(UUID id, String status, int attemptCount, String lastError, String traceparent,
                JsonObject json) {
            this(id, status, attemptCount, lastError, traceparent, null, json);
        }
    }

    /**
     * An invoke's answer: {@code 200} with the target's answer ({@code body}, of the media type {@code contentType}), or
     * {@code 202} when the wait ended first, with the row and where to ask later ({@link OutboxClient#reply(URI)}).
     */
    public record Invoked(int status, String body, UUID rowId, URI later, String contentType) {

        /** An answer whose media type is not known. */
        public Invoked(int status, String body, UUID rowId, URI later) {
            this(status, body, rowId, later, null);
        }

        public boolean answered() {
            return status == 200;
        }
    }

    /** A trigger as the API answers it; {@code secret} only in the answer that created or rotated it. */
    public record Trigger(UUID id, String sourceKind, boolean enabled, boolean held, String secret, JsonObject json) {
    }

    /**
     * What a trigger delivers to, how often it tries, and what its ordered lanes do when a head dead-letters:
     * {@code onDeadLetter} {@code continue} (the default when null) or {@code block} (until an operator skips or retries).
     * {@code enabled} false keeps its rows held (null: enabled); a {@code cron} trigger fires by its {@code schedule}
     * in its {@code timezone} (null: UTC), and {@code misfire} ({@code fire_once} or {@code skip}) says what a late fire does.
     */
    public record TriggerDefinition(String sourceKind, JsonObject target, Integer maxAttempts, String onDeadLetter,
            Boolean enabled,
            String schedule, String timezone, String misfire) {

        /** A definition that leaves being enabled and a schedule to the server's defaults. */
        public TriggerDefinition(String sourceKind, JsonObject target, Integer maxAttempts, String onDeadLetter) {
            this(sourceKind, target, maxAttempts, onDeadLetter, null, null, null, null);
        }

        /** A definition that leaves {@code onDeadLetter} to the server's default. */
        public TriggerDefinition(String sourceKind, JsonObject target, Integer maxAttempts) {
            this(sourceKind, target, maxAttempts, null);
        }

        public static TriggerDefinition webhook(String sourceKind, URI url) {
            return new TriggerDefinition(sourceKind,
                    Json.createObjectBuilder().add("type", "webhook").add("url", url.toString()).build(), null);
        }

        public static TriggerDefinition handler(String sourceKind, String name) {
            return new TriggerDefinition(sourceKind,
                    Json.createObjectBuilder().add("type", "handler").add("name", name).build(), null);
        }

        public static TriggerDefinition jms(String sourceKind, String destination) {
            return new TriggerDefinition(sourceKind,
                    Json.createObjectBuilder().add("type", "jms").add("destination", destination).build(), null);
        }

        /** {@code key}: {@code rowId} (the default when null), {@code appId} or {@code orderingKey}. */
        public static TriggerDefinition kafka(String sourceKind, String topic, String key) {
            JsonObjectBuilder target = Json.createObjectBuilder().add("type", "kafka").add("topic", topic);
            if (key != null) {
                target.add("key", key);
            }
            return new TriggerDefinition(sourceKind, target.build(), null);
        }

        public TriggerDefinition maxAttempts(int attempts) {
            return new TriggerDefinition(sourceKind, target, attempts, onDeadLetter, enabled, schedule, timezone,
                    misfire);
        }

        /** {@code continue} or {@code block}. */
        public TriggerDefinition onDeadLetter(String policy) {
            return new TriggerDefinition(sourceKind, target, maxAttempts, policy, enabled, schedule, timezone, misfire);
        }

        public TriggerDefinition enabled(boolean on) {
            return new TriggerDefinition(sourceKind, target, maxAttempts, onDeadLetter, on, schedule, timezone,
                    misfire);
        }

        /**
         * A cron trigger's schedule (five fields, six with seconds first, or a macro such as {@code @daily}) in the time
         * zone {@code zone} (null: UTC).
         */
        public TriggerDefinition schedule(String cron, String zone) {
            return new TriggerDefinition(sourceKind, target, maxAttempts, onDeadLetter, enabled, cron, zone, misfire);
        }

        /** {@code fire_once} or {@code skip}. */
        public TriggerDefinition misfire(String policy) {
            return new TriggerDefinition(sourceKind, target, maxAttempts, onDeadLetter, enabled, schedule, timezone,
                    policy);
        }

        JsonObject json() {
            JsonObjectBuilder b = Json.createObjectBuilder().add("sourceKind", sourceKind).add("target", target);
            if (maxAttempts != null) {
                b.add("maxAttempts", maxAttempts);
            }
            if (enabled != null) {
                b.add("enabled", enabled);
            }
            addIf(b, "onDeadLetter", onDeadLetter);
            addIf(b, "schedule", schedule);
            addIf(b, "timezone", timezone);
            addIf(b, "misfire", misfire);
            return b.build();
        }
    }

    /**
     * Per-call headers: an {@code Idempotency-Key} (a repeat of the call with the same key answers the first
     * answer and writes nothing), and the W3C trace context the rows written carry to their deliveries.
     */
    public record Call(String idempotencyKey, String traceparent, String tracestate) {

        public static Call plain() {
            return new Call(null, null, null);
        }

        public static Call idempotent(String key) {
            return new Call(key, null, null);
        }

        public Call traced(String parent, String state) {
            return new Call(idempotencyKey, parent, state);
        }

        Invocation.Builder on(Invocation.Builder request) {
            if (idempotencyKey != null) {
                request.header("Idempotency-Key", idempotencyKey);
            }
            if (traceparent != null) {
                request.header("traceparent", traceparent);
            }
            if (tracestate != null) {
                request.header("tracestate", tracestate);
            }
            return request;
        }
    }

    private static final String PROBLEM_PREFIX = "urn:trigger-outbox:problem:";

    private final Client client;
    private final boolean ownClient;
    private final WebTarget api;
    private final String authorization;

    private OutboxClient(Client client, boolean ownClient, WebTarget api, String authorization) {
        this.client = client;
        this.ownClient = ownClient;
        this.api = api;
        this.authorization = authorization;
    }

    /** A client of its own for the API at {@code api} (e.g. {@code http://host:8080/outbox/api/v1/}), signing in with HTTP Basic. */
    public static OutboxClient connect(URI api, String user, String password) {
        Client client = ClientBuilder.newClient();
        String basic = "Basic "
                + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return new OutboxClient(client, true, client.target(api), basic);
    }

    /** Calls through a target the caller configured (its client, its authentication); closing leaves the client open. */
    public static OutboxClient over(WebTarget api) {
        return new OutboxClient(null, false, api, null);
    }

    @Override
    public void close() {
        if (ownClient) {
            client.close();
        }
    }

    // ---- producers

    public List<Written> publish(UUID app, Event event) {
        return publish(app, event, Call.plain());
    }

    /** {@code POST /apps/{app}/events}: the rows written, one per matching enabled trigger. */
    public List<Written> publish(UUID app, Event event, Call call) {
        return written(post(call, "apps/" + app + "/events", event.json().build()), 202);
    }

    /** {@code POST /apps/{app}/events:batch}: every event in one transaction, all or nothing. */
    public List<Written> publishAll(UUID app, List<Event> events, Call call) {
        JsonArrayBuilder list = Json.createArrayBuilder();
        events.forEach(e -> list.add(e.json()));
        return written(
                post(call, "apps/" + app + "/events:batch", Json.createObjectBuilder().add("events", list).build()),
                202);
    }

    public UUID enqueue(NewRow row) {
        return enqueue(row, Call.plain());
    }

    /** {@code POST /outbox}: the row's id. */
    public UUID enqueue(NewRow row, Call call) {
        JsonObject answer = object(post(call, "outbox", row.json().build()), 201);
        return UUID.fromString(answer.getString("id"));
    }

    /** {@code POST /outbox:batch}: every row in one transaction, all or nothing. */
    public List<Written> enqueueAll(List<NewRow> rows, Call call) {
        JsonArrayBuilder list = Json.createArrayBuilder();
        rows.forEach(r -> list.add(r.json()));
        return written(post(call, "outbox:batch", Json.createObjectBuilder().add("events", list).build()), 202);
    }

    /** {@code GET /outbox/{id}}. */
    public RowStatus status(UUID row) {
        return rowStatus(object(send(request("outbox/" + row).buildGet()), 200));
    }

    /** {@code GET /outbox/{id}/attempts}: the row's delivery log, first attempt first, each as the API answers it. */
    public List<JsonObject> attempts(UUID row) {
        return object(send(request("outbox/" + row + "/attempts").buildGet()), 200).getJsonArray("items")
                .getValuesAs(JsonObject.class);
    }

    /** {@code POST /outbox/{id}/cancel}: the row as it stands after (cancelled, or still in flight with cancelRequested). */
    public RowStatus cancel(UUID row) {
        Response r = send(request("outbox/" + row + "/cancel").buildPost(null));
        return rowStatus(object(r, r.getStatus() == 202 ? 202 : 200));
    }

    /** {@code POST /apps/{app}/triggers/{trigger}/invoke}: waits up to {@code wait} for the target's answer. */
    public Invoked invoke(UUID app, UUID trigger, JsonValue payload, Duration wait, Call call) {
        WebTarget target = api.path("apps/" + app + "/triggers/" + trigger + "/invoke").queryParam("timeoutMs",
                wait.toMillis());
        Response r = send(call.on(authorized(target.request())).buildPost(Entity.json(
                Json.createObjectBuilder().add("payload", payload).build().toString())));
        return invoked(r);
    }

    /** {@code GET /replies/{id}} at the place a 202 named. */
    public Invoked reply(URI later) {
        return invoked(send(authorized(at(later).request()).buildGet()));
    }

    // ---- admins

    /** {@code POST /apps/{app}/triggers}: the trigger, with a webhook's secret (shown this once). */
    public Trigger createTrigger(UUID app, TriggerDefinition definition, Call call) {
        return trigger(object(post(call, "apps/" + app + "/triggers", definition.json()), 201));
    }

    public List<Trigger> triggers(UUID app) {
        return array(send(request("apps/" + app + "/triggers").buildGet())).stream().map(v -> trigger(v.asJsonObject()))
                .toList();
    }

    public Trigger trigger(UUID app, UUID id) {
        return trigger(object(send(request("apps/" + app + "/triggers/" + id).buildGet()), 200));
    }

    /** {@code PUT /apps/{app}/triggers/{id}}: the trigger as {@code definition} says, under its id; a webhook keeps its secret. */
    public Trigger replaceTrigger(UUID app, UUID id, TriggerDefinition definition) {
        return trigger(object(
                send(request("apps/" + app + "/triggers/" + id).buildPut(Entity.json(definition.json().toString()))),
                200));
    }

    public void deleteTrigger(UUID app, UUID id) {
        expect(send(request("apps/" + app + "/triggers/" + id).buildDelete()), 204);
    }

    /** {@code POST …/secret}: the new secret (shown this once); the replaced one signs beside it until its overlap ends. */
    public Trigger rotateSecret(UUID app, UUID id) {
        return rotateSecret(app, id, Call.plain());
    }

    /** As {@link #rotateSecret(UUID, UUID)}; a repeat with the call's key answers the trigger without a secret and rotates nothing. */
    public Trigger rotateSecret(UUID app, UUID id, Call call) {
        return trigger(
                object(send(call.on(request("apps/" + app + "/triggers/" + id + "/secret")).buildPost(null)), 200));
    }

    /** {@code POST …/hold}: from the commit on no node claims the trigger's rows (status {@code held}) until {@link #releaseTrigger}. */
    public Trigger holdTrigger(UUID app, UUID id) {
        return trigger(object(send(request("apps/" + app + "/triggers/" + id + "/hold").buildPost(null)), 200));
    }

    /** {@code POST …/release}: the trigger's held rows come due in the order they were due. */
    public Trigger releaseTrigger(UUID app, UUID id) {
        return trigger(object(send(request("apps/" + app + "/triggers/" + id + "/release").buildPost(null)), 200));
    }

    /** {@code POST /admin/apps/{app}/hold}: none of the app's rows is claimed until {@link #releaseApp}; the hold ({@code held, heldAt, heldBy}). */
    public JsonObject holdApp(UUID app) {
        return object(send(request("admin/apps/" + app + "/hold").buildPost(null)), 200);
    }

    /** {@code POST /admin/apps/{app}/release}: {@code held} false and {@code releasedRows}. */
    public JsonObject releaseApp(UUID app) {
        return object(send(request("admin/apps/" + app + "/release").buildPost(null)), 200);
    }

    /** {@code GET /admin/stats}. */
    public JsonObject stats() {
        return object(send(request("admin/stats").buildGet()), 200);
    }

    /** {@code POST /admin/dead-letters/{id}/replay}: back into the outbox under its id, attempts reset. */
    public void replayDeadLetter(UUID id, Call call) {
        expect(send(call.on(request("admin/dead-letters/" + id + "/replay")).buildPost(null)), 201);
    }

    public void discardDeadLetter(UUID id) {
        expect(send(request("admin/dead-letters/" + id).buildDelete()), 204);
    }

    /** {@code POST /admin/dispatcher/pause}: no node claims until {@link #resume()}. */
    public void pause() {
        expect(send(request("admin/dispatcher/pause").buildPost(null)), 204);
    }

    public void resume() {
        expect(send(request("admin/dispatcher/resume").buildPost(null)), 204);
    }

    /**
     * {@code GET /admin/lanes}: ordered lanes that do not flow, of {@code app} (null: every app), up to {@code limit}
     * of each state (null: 50), each as the API answers it ({@code state} {@code blocked} or {@code retrying},
     * {@code triggerId, orderingKey, headId, attempts, waiting, since, lastError}).
     */
    public List<JsonObject> lanes(UUID app, Integer limit) {
        WebTarget target = api.path("admin/lanes");
        if (app != null) {
            target = target.queryParam("appId", app);
        }
        if (limit != null) {
            target = target.queryParam("limit", limit);
        }
        return object(send(authorized(target.request()).buildGet()), 200).getJsonArray("items")
                .getValuesAs(JsonObject.class);
    }

    /** {@code POST /admin/lanes/skip}: the blocked lane moves on, its dead head stays a dead letter; 409 {@code lane-not-blocked}. */
    public JsonObject skipLane(UUID trigger, String orderingKey) {
        return object(post(Call.plain(), "admin/lanes/skip", lane(trigger, orderingKey)), 200);
    }

    /** {@code POST /admin/lanes/retry}: a blocked lane's dead head replayed, or a retrying head due now; 409 {@code lane-not-stuck}. */
    public JsonObject retryLane(UUID trigger, String orderingKey) {
        return object(post(Call.plain(), "admin/lanes/retry", lane(trigger, orderingKey)), 200);
    }

    // ---- the wire

    private Invocation.Builder request(String path) {
        return authorized(api.path(path).request());
    }

    /** A place the API named (a {@code Location}: a path), as a target under the API's own. */
    private WebTarget at(URI place) {
        String base = api.getUri().getPath();
        String prefix = base.endsWith("/") ? base : base + "/";
        String path = api.getUri().resolve(place).getPath();
        if (!path.startsWith(prefix)) {
            throw new IllegalArgumentException("not a place of this API: " + place);
        }
        return api.path(path.substring(prefix.length()));
    }

    private Invocation.Builder authorized(Invocation.Builder request) {
        // a changing call without a JSON body must say it is a script's (the API's cross-site rule)
        request.header("X-Requested-By", "trigger-outbox-client");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request;
    }

    private Response post(Call call, String path, JsonValue body) {
        return send(call.on(request(path)).buildPost(Entity.json(body.toString())));
    }

    private static Response send(Invocation invocation) {
        return invocation.invoke();
    }

    private static void expect(Response r, int status) {
        try (r) {
            if (r.getStatus() != status) {
                throw problem(r);
            }
        }
    }

    private static JsonObject object(Response r, int status) {
        try (r) {
            if (r.getStatus() != status) {
                throw problem(r);
            }
            return read(r.readEntity(String.class)).asJsonObject();
        }
    }

    private static List<JsonValue> array(Response r) {
        try (r) {
            if (r.getStatus() != 200) {
                throw problem(r);
            }
            return read(r.readEntity(String.class)).asJsonArray();
        }
    }

    private static List<Written> written(Response r, int status) {
        JsonObject answer = object(r, status);
        List<Written> rows = new ArrayList<>();
        for (JsonValue v : answer.getJsonArray("rows")) {
            JsonObject row = v.asJsonObject();
            rows.add(new Written(row.containsKey("event") ? row.getInt("event") : null,
                    UUID.fromString(row.getString("id")),
                    row.containsKey("triggerId") && !row.isNull("triggerId")
                            ? UUID.fromString(row.getString("triggerId"))
                            : null));
        }
        return rows;
    }

    private static JsonObject lane(UUID trigger, String orderingKey) {
        return Json.createObjectBuilder().add("triggerId", trigger.toString()).add("orderingKey", orderingKey).build();
    }

    private static Invoked invoked(Response r) {
        try (r) {
            String type = r.getHeaderString("Content-Type");
            if (r.getStatus() == 200) {
                return new Invoked(200, r.readEntity(String.class), null, null, type);
            }
            if (r.getStatus() == 202) {
                String row = r.getHeaderString("Outbox-Row-Id");
                return new Invoked(202, r.readEntity(String.class), row == null ? null : UUID.fromString(row),
                        r.getLocation(), type);
            }
            throw problem(r);
        }
    }

    private static RowStatus rowStatus(JsonObject json) {
        return new RowStatus(UUID.fromString(json.getString("id")), json.getString("status"),
                json.getInt("attemptCount"),
                text(json, "lastError"), text(json, "traceparent"), text(json, "orderingKey"), json);
    }

    private static Trigger trigger(JsonObject json) {
        return new Trigger(UUID.fromString(json.getString("id")), json.getString("sourceKind"),
                json.getBoolean("enabled", true),
                json.getBoolean("held", false), text(json, "secret"), json);
    }

    /** The problem of a refused call; an answer that is not one (a proxy's, say) becomes one of its status. */
    static ProblemException problem(Response r) {
        String retry = r.getHeaderString("Retry-After");
        Long retryAfter = retry != null && retry.matches("\\d{1,9}") ? Long.valueOf(retry) : null;
        String body = r.hasEntity() ? r.readEntity(String.class) : "";
        JsonObject problem;
        try {
            problem = read(body).asJsonObject();
        } catch (RuntimeException e) {
            return new ProblemException(r.getStatus(), "http-" + r.getStatus(), r.getStatusInfo().getReasonPhrase(),
                    null, List.of(), retryAfter);
        }
        String type = text(problem, "type");
        List<ProblemException.FieldError> errors = new ArrayList<>();
        if (problem.containsKey("errors")) {
            for (JsonValue e : problem.getJsonArray("errors")) {
                errors.add(new ProblemException.FieldError(text(e.asJsonObject(), "field"),
                        text(e.asJsonObject(), "message")));
            }
        }
        return new ProblemException(r.getStatus(),
                type != null && type.startsWith(PROBLEM_PREFIX) ? type.substring(PROBLEM_PREFIX.length()) : type,
                text(problem, "title"), text(problem, "detail"), errors, retryAfter);
    }

    private static JsonValue read(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }

    private static String text(JsonObject json, String name) {
        JsonValue v = json.get(name);
        if (v instanceof JsonString s) {
            return s.getString();
        }
        return v instanceof JsonNumber n ? n.toString() : null;
    }

    private static void addIf(JsonObjectBuilder b, String name, Object value) {
        if (value != null) {
            b.add(name, value.toString());
        }
    }
}
