package dev.triggeroutbox.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP client stacks the comparison measures, each set up the way the WAR would run it: HTTP/1.1,
 * redirects off, a connection pool as large as the concurrency, and threads of its own (no JVM option).
 */
final class HttpStacks {

    /** One client: POSTs a request and completes with the status code. */
    interface Stack extends AutoCloseable {
        String name();

        CompletableFuture<Integer> post(URI uri, SignedPosts.Post post);

        @Override
        void close() throws Exception;
    }

    private HttpStacks() {
    }

    /** The JDK's client on a fixed pool of its own; its answers still pass CompletableFuture's default executor. */
    static Stack jdk(int threads) {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).executor(executor).build();
        return new Stack() {
            public String name() {
                return "JDK HttpClient (Java " + Runtime.version().feature() + ", executor of " + threads + " threads)";
            }

            public CompletableFuture<Integer> post(URI uri, SignedPosts.Post post) {
                HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(java.time.Duration.ofSeconds(10));
                post.headers().forEach(b::header);
                return client.sendAsync(b.POST(HttpRequest.BodyPublishers.ofByteArray(post.body())).build(),
                        HttpResponse.BodyHandlers.discarding()).thenApply(HttpResponse::statusCode);
            }

            public void close() {
                executor.shutdownNow();
            }
        };
    }

    /** Jetty 12's client: one selector, a small pool of its own. */
    static Stack jetty(int connections) throws Exception {
        org.eclipse.jetty.client.HttpClient client = new org.eclipse.jetty.client.HttpClient();
        QueuedThreadPool pool = new QueuedThreadPool(16, 2);
        pool.setName("bench-jetty");
        client.setExecutor(pool);
        client.setFollowRedirects(false);
        client.setMaxConnectionsPerDestination(connections);
        client.setMaxRequestsQueuedPerDestination(100_000);
        client.start();
        return new Stack() {
            public String name() {
                return "Jetty HttpClient " + org.eclipse.jetty.util.Jetty.VERSION + " (1 selector, pool of 16)";
            }

            public CompletableFuture<Integer> post(URI uri, SignedPosts.Post post) {
                CompletableFuture<Integer> f = new CompletableFuture<>();
                client.newRequest(uri).method(HttpMethod.POST).timeout(10, TimeUnit.SECONDS)
                        .headers(h -> post.headers().forEach(h::put))
                        .body(new BytesRequestContent("application/json", post.body()))
                        .send((Result r) -> {
                            if (r.isFailed()) {
                                f.completeExceptionally(r.getFailure());
                            } else {
                                f.complete(r.getResponse().getStatus());
                            }
                        });
                return f;
            }

            public void close() throws Exception {
                client.stop();
            }
        };
    }

    /** Apache HttpClient 5's async client: its I/O reactor (one thread per CPU), HTTP/1.1 forced. */
    static Stack apache(int connections) {
        CloseableHttpAsyncClient client = HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setMaxConnPerRoute(connections).setMaxConnTotal(connections).build())
                .setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1)
                .disableRedirectHandling().disableAutomaticRetries().disableCookieManagement().build();
        client.start();
        return new Stack() {
            public String name() {
                return "Apache HttpClient 5 async " + org.apache.hc.client5.http.impl.async.HttpAsyncClients.class
                        .getPackage().getImplementationVersion() + " (I/O reactor, " + Runtime.getRuntime().availableProcessors()
                        + " threads)";
            }

            public CompletableFuture<Integer> post(URI uri, SignedPosts.Post post) {
                SimpleRequestBuilder b = SimpleRequestBuilder.post(uri).setBody(post.body(), ContentType.APPLICATION_JSON);
                post.headers().forEach((k, v) -> {
                    if (!k.equals("Content-Type")) {
                        b.addHeader(k, v);
                    }
                });
                CompletableFuture<Integer> f = new CompletableFuture<>();
                client.execute(SimpleRequestProducer.create(b.build()), SimpleResponseConsumer.create(),
                        new FutureCallback<SimpleHttpResponse>() {
                            public void completed(SimpleHttpResponse r) {
                                f.complete(r.getCode());
                            }

                            public void failed(Exception e) {
                                f.completeExceptionally(e);
                            }

                            public void cancelled() {
                                f.cancel(false);
                            }
                        });
                return f;
            }

            public void close() {
                client.close(CloseMode.GRACEFUL);
            }
        };
    }
}
