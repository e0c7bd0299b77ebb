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
                        .getPackage().getImplementationVersion() + " (I/O reactor, "
                        + Runtime.getRuntime().availableProcessors()
                        + " threads)";
            }

            public CompletableFuture<Integer> post(URI uri, SignedPosts.Post post) {
                SimpleRequestBuilder b = SimpleRequestBuilder.post(uri).setBody(post.body(),
                        ContentType.APPLICATION_JSON);
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

    /**
     * Netty 4.2's HTTP codec on one NIO event loop, with the smallest pool that works: an idle channel is reused, a new
     * one opened while fewer than {@code connections} are open, otherwise the request waits for the next channel that
     * becomes free. What a webhook sender built on Netty would pay per request.
     */
    static Stack netty(int connections) {
        io.netty.channel.EventLoopGroup group = new io.netty.channel.MultiThreadIoEventLoopGroup(1,
                io.netty.channel.nio.NioIoHandler.newFactory());
        java.util.concurrent.ConcurrentLinkedQueue<io.netty.channel.Channel> idle = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.ConcurrentLinkedQueue<Runnable> waiting = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
        io.netty.util.AttributeKey<CompletableFuture<Integer>> pending = io.netty.util.AttributeKey.valueOf("pending");
        io.netty.bootstrap.Bootstrap bootstrap = new io.netty.bootstrap.Bootstrap().group(group)
                .channel(io.netty.channel.socket.nio.NioSocketChannel.class)
                .option(io.netty.channel.ChannelOption.TCP_NODELAY, true)
                .handler(new io.netty.channel.ChannelInitializer<io.netty.channel.socket.SocketChannel>() {
                    @Override
                    protected void initChannel(io.netty.channel.socket.SocketChannel ch) {
                        ch.pipeline().addLast(new io.netty.handler.codec.http.HttpClientCodec(),
                                new io.netty.channel.SimpleChannelInboundHandler<io.netty.handler.codec.http.HttpObject>() {
                                    private int status;

                                    @Override
                                    protected void channelRead0(io.netty.channel.ChannelHandlerContext ctx,
                                            io.netty.handler.codec.http.HttpObject msg) {
                                        if (msg instanceof io.netty.handler.codec.http.HttpResponse r) {
                                            status = r.status().code();
                                        }
                                        if (msg instanceof io.netty.handler.codec.http.LastHttpContent) {
                                            CompletableFuture<Integer> f = ctx.channel().attr(pending).getAndSet(null);
                                            Runnable next = waiting.poll();
                                            if (next != null) {
                                                idle.add(ctx.channel());
                                                next.run();
                                            } else {
                                                idle.add(ctx.channel());
                                            }
                                            f.complete(status);
                                        }
                                    }
                                });
                    }
                });
        return new Stack() {
            public String name() {
                return "Netty " + io.netty.util.Version.identify().values().iterator().next().artifactVersion()
                        + " HTTP codec (1 NIO event loop)";
            }

            public CompletableFuture<Integer> post(URI uri, SignedPosts.Post post) {
                CompletableFuture<Integer> f = new CompletableFuture<>();
                send(uri, post, f);
                return f;
            }

            private void send(URI uri, SignedPosts.Post post, CompletableFuture<Integer> f) {
                io.netty.channel.Channel ch = idle.poll();
                if (ch != null) {
                    write(ch, uri, post, f);
                } else if (open.incrementAndGet() <= connections) {
                    bootstrap.connect(uri.getHost(), uri.getPort()).addListener(
                            (io.netty.channel.ChannelFutureListener) cf -> {
                                if (cf.isSuccess()) {
                                    write(cf.channel(), uri, post, f);
                                } else {
                                    f.completeExceptionally(cf.cause());
                                }
                            });
                } else {
                    open.decrementAndGet();
                    waiting.add(() -> send(uri, post, f));
                }
            }

            private void write(io.netty.channel.Channel ch, URI uri, SignedPosts.Post post,
                    CompletableFuture<Integer> f) {
                io.netty.handler.codec.http.DefaultFullHttpRequest req = new io.netty.handler.codec.http.DefaultFullHttpRequest(
                        io.netty.handler.codec.http.HttpVersion.HTTP_1_1, io.netty.handler.codec.http.HttpMethod.POST,
                        uri.getRawPath(), io.netty.buffer.Unpooled.wrappedBuffer(post.body()));
                io.netty.handler.codec.http.HttpHeaders h = req.headers();
                h.set("Host", uri.getHost() + ":" + uri.getPort());
                post.headers().forEach(h::set);
                h.set("Content-Length", post.body().length);
                ch.attr(pending).set(f);
                ch.writeAndFlush(req);
            }

            public void close() throws Exception {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        };
    }
}
