package dev.triggeroutbox.replies.control;

import dev.triggeroutbox.rest.control.Jsons;
import dev.triggeroutbox.rest.control.Problems;
import jakarta.json.JsonException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * How a reply goes back over HTTP: the target's answer as the body, 502 when the target failed, 409 when the row
 * was cancelled.
 */
public final class ReplyAnswers {

    private ReplyAnswers() {
    }

    public static Response of(StoredReplies.Reply reply, String instance) {
        if (reply.cancelled()) {
            return Response.fromResponse(Problems.response(409, "cancelled", "The row was cancelled",
                    "outbox row " + reply.row() + " was cancelled before it was delivered", instance))
                    .header("Outbox-Row-Id", reply.row().toString()).build();
        }
        if (!reply.delivered()) {
            return Response.fromResponse(Problems.response(502, "target-failed", "The target failed",
                    "the target did not accept the request: " + reply.error(), instance))
                    .header("Outbox-Row-Id", reply.row().toString()).build();
        }
        Response.ResponseBuilder r = Response.ok().header("Outbox-Row-Id", reply.row().toString());
        String body = reply.body();
        if (body == null || body.isEmpty()) {
            return r.build();
        }
        return r.type(isJson(body) ? MediaType.APPLICATION_JSON_TYPE : MediaType.TEXT_PLAIN_TYPE.withCharset("UTF-8"))
                .entity(body).build();
    }

    private static boolean isJson(String text) {
        try (var reader = Jsons.reader(text)) {
            reader.readValue();
            return true;
        } catch (JsonException | IllegalStateException e) {
            return false;
        }
    }
}
