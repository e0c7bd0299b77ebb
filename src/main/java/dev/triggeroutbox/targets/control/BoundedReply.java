package dev.triggeroutbox.targets.control;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Reads a webhook's answer: its status, the headers a result needs, and at most {@code limit} bytes of
 * its body as UTF-8 text; past the limit it stops reading (which closes the connection). A target's
 * answer is kept as the reply and shown in errors; an endless or huge body must not fill the heap.
 */
final class BoundedReply implements Response.Listener {

    /** What a webhook answered. */
    record Answer(int status, String body, String location, String retryAfter) {
    }

    /** Why the exchange was ended on our side after the limit: not a failure of the delivery. */
    private static final class Enough extends Exception {
        Enough() {
            super("the reply is long enough", null, false, false);
        }
    }

    private final int limit;
    private final CompletableFuture<Answer> answer = new CompletableFuture<>();
    private ByteArrayOutputStream bytes; // most answers have no body: made on the first byte

    BoundedReply(int limit) {
        this.limit = limit;
    }

    CompletableFuture<Answer> answer() {
        return answer;
    }

    @Override
    public void onContent(Response response, ByteBuffer content) {
        if (bytes == null) {
            bytes = new ByteArrayOutputStream(Math.min(limit, Math.max(content.remaining(), 256)));
        }
        int remaining = content.remaining();
        int take = Math.min(limit - bytes.size(), remaining);
        if (content.hasArray()) {
            bytes.write(content.array(), content.arrayOffset() + content.position(), take);
        } else {
            byte[] chunk = new byte[take];
            content.get(chunk);
            bytes.write(chunk, 0, take);
        }
        if (take < remaining) {
            response.abort(new Enough());
        }
    }

    @Override
    public void onComplete(Result result) {
        Response r = result.getResponse();
        if (result.isFailed() && !(result.getFailure() instanceof Enough)) {
            answer.completeExceptionally(result.getFailure());
            return;
        }
        // a multi-byte character cut at the limit decodes as U+FFFD, which is fine for a reply or a snippet
        String body = bytes == null ? null : bytes.toString(StandardCharsets.UTF_8);
        answer.complete(new Answer(r.getStatus(), body, r.getHeaders().get(HttpHeader.LOCATION),
                r.getHeaders().get(HttpHeader.RETRY_AFTER)));
    }
}
