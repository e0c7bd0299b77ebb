package dev.triggeroutbox.client;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;
import org.eclipse.microprofile.rest.client.annotation.ClientHeaderParam;
import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.ext.ResponseExceptionMapper;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * Every call of the REST API as a MicroProfile Rest Client interface, for servers that have one (WildFly's
 * {@code microprofile-rest-client} subsystem, Payara, Open Liberty, Quarkus). Inject it with
 * {@code @Inject @RestClient OutboxApi outbox} and configure {@code trigger-outbox/mp-rest/url} (the API's base,
 * {@code https://outbox.example.com/outbox/api/v1}) and {@code trigger-outbox/mp-rest/providers} (a
 * {@code ClientRequestFilter} of yours, with a constructor without arguments, that signs the calls in); or build one:
 * {@code RestClientBuilder.newBuilder().baseUri(api).register(new OutboxApi.BasicAuth(user, password)).build(OutboxApi.class)}.
 * <p>
 * Bodies and answers are JSON-P values as the API documents them (docs/API.md, {@code GET /openapi.json}); the
 * records of {@link OutboxClient} read them. A header parameter left null is not sent. An answer of 400 or more
 * throws {@link ProblemException}, with the problem's type and field errors. Calls whose answer has more than one
 * success status (invoke: 200 or 202; a reply; a cancel) return the {@link Response}.
 */
@RegisterRestClient(configKey = "trigger-outbox")
@RegisterProvider(OutboxApi.Problems.class)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
// a POST without a JSON body needs it (the API's cross-site request forgery check); harmless on the others
@ClientHeaderParam(name = "X-Requested-By", value = "trigger-outbox-client")
public interface OutboxApi {

    /** Activity per minute (GET /admin/activity; 200; outbox-admin). */
    @GET
    @Path("admin/activity")
    JsonObject activity(@QueryParam("minutes") Integer minutes);

    /** Audit record (GET /admin/audit; 200; outbox-admin). */
    @GET
    @Path("admin/audit")
    JsonObject audit(@QueryParam("action") String action, @QueryParam("targetId") String targetId,
            @QueryParam("limit") Integer limit, @QueryParam("cursor") String cursor);

    /** Breakdown by source kind or app (GET /admin/breakdown; 200; outbox-admin). */
    @GET
    @Path("admin/breakdown")
    JsonObject breakdown(@QueryParam("by") String by, @QueryParam("limit") Integer limit);

    /** Browse dead letters (GET /admin/dead-letters; 200; outbox-admin). */
    @GET
    @Path("admin/dead-letters")
    JsonObject deadLetters(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("error") String error, @QueryParam("limit") Integer limit, @QueryParam("cursor") String cursor);

    /** Browse dead letters, also by trigger and ordering key (GET /admin/dead-letters; 200; outbox-admin). */
    @GET
    @Path("admin/dead-letters")
    JsonObject deadLetters(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("error") String error, @QueryParam("triggerId") String triggerId,
            @QueryParam("orderingKey") String orderingKey, @QueryParam("limit") Integer limit,
            @QueryParam("cursor") String cursor);

    /** Replay every dead letter that matches (POST /admin/dead-letters/replay; 200; outbox-admin). */
    @POST
    @Path("admin/dead-letters/replay")
    JsonObject replayDeadLetters(JsonObject body, @HeaderParam("Idempotency-Key") String idempotencyKey);

    /** Dead letters grouped by failure (GET /admin/dead-letters/groups; 200; outbox-admin). */
    @GET
    @Path("admin/dead-letters/groups")
    JsonObject deadLetterGroups(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("error") String error, @QueryParam("triggerId") String triggerId,
            @QueryParam("limit") Integer limit, @QueryParam("cursor") String cursor);

    /** Dead letters grouped by failure, also by ordering key (GET /admin/dead-letters/groups; 200; outbox-admin). */
    @GET
    @Path("admin/dead-letters/groups")
    JsonObject deadLetterGroups(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("error") String error, @QueryParam("triggerId") String triggerId,
            @QueryParam("orderingKey") String orderingKey, @QueryParam("limit") Integer limit,
            @QueryParam("cursor") String cursor);

    /** Discard every dead letter that matches (POST /admin/dead-letters/discard; 200; outbox-admin). */
    @POST
    @Path("admin/dead-letters/discard")
    JsonObject discardDeadLetters(JsonObject body);

    /** One dead letter in full (GET /admin/dead-letters/{id}; 200; outbox-admin). */
    @GET
    @Path("admin/dead-letters/{id}")
    JsonObject deadLetter(@PathParam("id") UUID id);

    /** Discard a dead letter (DELETE /admin/dead-letters/{id}; 204; outbox-admin). */
    @DELETE
    @Path("admin/dead-letters/{id}")
    void discardDeadLetter(@PathParam("id") UUID id);

    /** Replay one dead letter (POST /admin/dead-letters/{id}/replay; 201; outbox-admin). */
    @POST
    @Path("admin/dead-letters/{id}/replay")
    JsonObject replayDeadLetter(@PathParam("id") UUID id, @HeaderParam("Idempotency-Key") String idempotencyKey);

    /** A row's delivery log (GET /outbox/{id}/attempts; 200; outbox-producer, outbox-admin). */
    @GET
    @Path("outbox/{id}/attempts")
    JsonObject attempts(@PathParam("id") UUID id);

    /** Hold a trigger's rows (POST /apps/{appId}/triggers/{id}/hold; 200; outbox-admin). */
    @POST
    @Path("apps/{appId}/triggers/{id}/hold")
    JsonObject holdTrigger(@PathParam("appId") UUID appId, @PathParam("id") UUID id);

    /** Release a held trigger (POST /apps/{appId}/triggers/{id}/release; 200; outbox-admin). */
    @POST
    @Path("apps/{appId}/triggers/{id}/release")
    JsonObject releaseTrigger(@PathParam("appId") UUID appId, @PathParam("id") UUID id);

    /** Hold every row of an app (POST /admin/apps/{appId}/hold; 200; outbox-admin). */
    @POST
    @Path("admin/apps/{appId}/hold")
    JsonObject holdApp(@PathParam("appId") UUID appId);

    /** Release an app on hold (POST /admin/apps/{appId}/release; 200; outbox-admin). */
    @POST
    @Path("admin/apps/{appId}/release")
    JsonObject releaseApp(@PathParam("appId") UUID appId);

    /** Apps on hold (GET /admin/holds; 200; outbox-admin). */
    @GET
    @Path("admin/holds")
    JsonObject holds();

    /** Ordered lanes that do not flow (GET /admin/lanes; 200; outbox-admin). */
    @GET
    @Path("admin/lanes")
    JsonObject lanes(@QueryParam("appId") UUID appId, @QueryParam("limit") Integer limit);

    /** Let a blocked lane move on (POST /admin/lanes/skip; 200, 409 lane-not-blocked; outbox-admin). */
    @POST
    @Path("admin/lanes/skip")
    JsonObject skipLane(JsonObject body);

    /** Retry a lane's head now (POST /admin/lanes/retry; 200, 409 lane-not-stuck; outbox-admin). */
    @POST
    @Path("admin/lanes/retry")
    JsonObject retryLane(JsonObject body);

    /** Pause dispatching on every node (POST /admin/dispatcher/pause; 204; outbox-admin). */
    @POST
    @Path("admin/dispatcher/pause")
    void pause();

    /** Resume dispatching on every node (POST /admin/dispatcher/resume; 204; outbox-admin). */
    @POST
    @Path("admin/dispatcher/resume")
    void resume();

    /** Dispatcher nodes (GET /admin/nodes; 200; outbox-admin). */
    @GET
    @Path("admin/nodes")
    JsonObject nodes();

    /** A row's trail (GET /admin/rows/{id}; 200; outbox-admin). */
    @GET
    @Path("admin/rows/{id}")
    JsonObject adminRow(@PathParam("id") UUID id);

    /** Browse every row (GET /admin/rows; 200; outbox-admin). */
    @GET
    @Path("admin/rows")
    JsonObject rows(@QueryParam("status") String status, @QueryParam("appId") String appId,
            @QueryParam("triggerId") String triggerId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("orderingKey") String orderingKey, @QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("limit") Integer limit, @QueryParam("cursor") String cursor);

    /** Totals (GET /admin/stats; 200; outbox-admin). */
    @GET
    @Path("admin/stats")
    JsonObject stats();

    /** Triggers of every app (GET /admin/triggers; 200; outbox-admin). */
    @GET
    @Path("admin/triggers")
    JsonObject allTriggers(@QueryParam("appId") String appId, @QueryParam("sourceKind") String sourceKind,
            @QueryParam("limit") Integer limit, @QueryParam("cursor") String cursor);

    /** Publish an event (POST /apps/{appId}/events; 202; outbox-producer, outbox-admin). */
    @POST
    @Path("apps/{appId}/events")
    JsonObject publish(@PathParam("appId") UUID appId, JsonObject body,
            @HeaderParam("Idempotency-Key") String idempotencyKey, @HeaderParam("traceparent") String traceparent,
            @HeaderParam("tracestate") String tracestate);

    /** Publish many events (POST /apps/{appId}/events:batch; 202; outbox-producer, outbox-admin). */
    @POST
    @Path("apps/{appId}/events:batch")
    JsonObject publishAll(@PathParam("appId") UUID appId, JsonObject body,
            @HeaderParam("Idempotency-Key") String idempotencyKey, @HeaderParam("traceparent") String traceparent,
            @HeaderParam("tracestate") String tracestate);

    /** Register a trigger (POST /apps/{appId}/triggers; 201; outbox-admin). */
    @POST
    @Path("apps/{appId}/triggers")
    JsonObject createTrigger(@PathParam("appId") UUID appId, JsonObject body,
            @HeaderParam("Idempotency-Key") String idempotencyKey);

    /** Triggers of an app (GET /apps/{appId}/triggers; 200; outbox-admin). */
    @GET
    @Path("apps/{appId}/triggers")
    JsonArray triggers(@PathParam("appId") UUID appId);

    /** One trigger (GET /apps/{appId}/triggers/{id}; 200; outbox-admin). */
    @GET
    @Path("apps/{appId}/triggers/{id}")
    JsonObject trigger(@PathParam("appId") UUID appId, @PathParam("id") UUID id);

    /** Replace a trigger (PUT /apps/{appId}/triggers/{id}; 200; outbox-admin). */
    @PUT
    @Path("apps/{appId}/triggers/{id}")
    JsonObject replaceTrigger(@PathParam("appId") UUID appId, @PathParam("id") UUID id, JsonObject body);

    /** Delete a trigger (DELETE /apps/{appId}/triggers/{id}; 204; outbox-admin). */
    @DELETE
    @Path("apps/{appId}/triggers/{id}")
    void deleteTrigger(@PathParam("appId") UUID appId, @PathParam("id") UUID id);

    /** Rotate a webhook trigger's signing secret (POST /apps/{appId}/triggers/{id}/secret; 200; outbox-admin). */
    @POST
    @Path("apps/{appId}/triggers/{id}/secret")
    JsonObject rotateSecret(@PathParam("appId") UUID appId, @PathParam("id") UUID id,
            @HeaderParam("Idempotency-Key") String idempotencyKey);

    /** Request/reply through the outbox (POST /apps/{appId}/triggers/{triggerId}/invoke; 200, 202; outbox-producer, outbox-admin). */
    @POST
    @Path("apps/{appId}/triggers/{triggerId}/invoke")
    Response invoke(@PathParam("appId") UUID appId, @PathParam("triggerId") UUID triggerId,
            @QueryParam("timeoutMs") Long timeoutMs, JsonObject body,
            @HeaderParam("Idempotency-Key") String idempotencyKey, @HeaderParam("traceparent") String traceparent,
            @HeaderParam("tracestate") String tracestate);

    /** All checks (GET /health; 200; open). */
    @GET
    @Path("health")
    JsonObject health();

    /** Liveness (GET /health/live; 200; open). */
    @GET
    @Path("health/live")
    JsonObject live();

    /** Readiness (GET /health/ready; 200; open). */
    @GET
    @Path("health/ready")
    JsonObject ready();

    /** Prometheus metrics (GET /metrics; 200; outbox-admin). */
    @GET
    @Path("metrics")
    @Produces("text/plain")
    String metrics();

    /** This document (GET /openapi.json; 200; outbox-producer, outbox-admin). */
    @GET
    @Path("openapi.json")
    JsonObject openApi();

    /** Enqueue one row (POST /outbox; 201; outbox-producer, outbox-admin). */
    @POST
    @Path("outbox")
    JsonObject enqueue(JsonObject body, @HeaderParam("Idempotency-Key") String idempotencyKey,
            @HeaderParam("traceparent") String traceparent, @HeaderParam("tracestate") String tracestate);

    /** Enqueue many rows (POST /outbox:batch; 202; outbox-producer, outbox-admin). */
    @POST
    @Path("outbox:batch")
    JsonObject enqueueAll(JsonObject body, @HeaderParam("Idempotency-Key") String idempotencyKey,
            @HeaderParam("traceparent") String traceparent, @HeaderParam("tracestate") String tracestate);

    /** Where a row stands (GET /outbox/{id}; 200; outbox-producer, outbox-admin). */
    @GET
    @Path("outbox/{id}")
    JsonObject status(@PathParam("id") UUID id);

    /** Fetch a reply later (GET /replies/{id}; 200, 202; outbox-producer, outbox-admin). */
    @GET
    @Path("replies/{id}")
    Response reply(@PathParam("id") UUID id);

    /** A cascade as a tree (GET /admin/lineage/{rootExecutionId}; 200; outbox-admin). */
    @GET
    @Path("admin/lineage/{rootExecutionId}")
    JsonObject lineage(@PathParam("rootExecutionId") UUID rootExecutionId);

    /** Receive an inbound email (POST /apps/{appId}/email; 202; outbox-producer, outbox-admin). */
    @POST
    @Path("apps/{appId}/email")
    @Consumes("message/rfc822")
    JsonObject email(@PathParam("appId") UUID appId, String body,
            @HeaderParam("Idempotency-Key") String idempotencyKey);

    /** Cancel a row (POST /outbox/{id}/cancel; 200, 202; outbox-producer, outbox-admin). */
    @POST
    @Path("outbox/{id}/cancel")
    Response cancel(@PathParam("id") UUID id);

    /** Cancel every outbox row that matches (POST /admin/outbox/cancel; 200; outbox-admin). */
    @POST
    @Path("admin/outbox/cancel")
    JsonObject cancelAll(JsonObject body);

    /** Signs every call in with HTTP Basic as one user of the server's realm. */
    final class BasicAuth implements ClientRequestFilter {
        private final String authorization;

        public BasicAuth(String user, String password) {
            this.authorization = "Basic "
                    + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void filter(ClientRequestContext request) {
            request.getHeaders().putSingle(HttpHeaders.AUTHORIZATION, authorization);
        }
    }

    /** Turns an answer of 400 or more into a {@link ProblemException}, read from its problem+json body. */
    final class Problems implements ResponseExceptionMapper<ProblemException> {

        @Override
        public boolean handles(int status, MultivaluedMap<String, Object> headers) {
            return status >= 400;
        }

        @Override
        public ProblemException toThrowable(Response response) {
            return OutboxClient.problem(response);
        }
    }
}
