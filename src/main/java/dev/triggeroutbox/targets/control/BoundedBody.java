package dev.triggeroutbox.targets.control;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads at most {@code limit} bytes of a response body as UTF-8 text, then stops reading (which closes
 * the connection). A target's answer is kept as the reply and shown in errors; an endless or huge body
 * must not fill the heap.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<String> {

    private final int limit;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<String> text = new CompletableFuture<>();
    private Flow.Subscription subscription;

    private BoundedBody(int limit) {
        this.limit = limit;
    }

    static HttpResponse.BodyHandler<String> handler(int limit) {
        return info -> new BoundedBody(limit);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        for (ByteBuffer buffer : buffers) {
            int room = limit - bytes.size();
            int take = Math.min(room, buffer.remaining());
            byte[] chunk = new byte[take];
            buffer.get(chunk);
            bytes.write(chunk, 0, take);
            if (buffer.hasRemaining()) {
                subscription.cancel();
                finish();
                return;
            }
        }
        subscription.request(1);
    }

    @Override
    public void onError(Throwable e) {
        text.completeExceptionally(e);
    }

    @Override
    public void onComplete() {
        finish();
    }

    private void finish() {
        // a multi-byte character cut at the limit decodes as U+FFFD, which is fine for a reply or a snippet
        text.complete(bytes.toString(StandardCharsets.UTF_8));
    }

    @Override
    public CompletionStage<String> getBody() {
        return text;
    }
}
