package dev.triggeroutbox.targets.control;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.resolver.NoopAddressResolverGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The webhook sender's HTTP/1.1 client, on Netty's event loops (threads from the server's managed thread factory):
 * a POST is encoded straight into one buffer and written on a kept-alive connection of its origin, and its answer is
 * read by the loop that owns the connection, which also completes the delivery; no thread waits for a receiver and
 * no thread hands a request or an answer to another. Chosen over Jetty's client (the one used before) by the
 * benchmark's part "clients", which measures the stacks side by side (docs/BENCHMARKS.md).
 * <p>
 * What webhooks need and nothing more: redirects are never followed (the caller gets the 3xx), no cookies, no
 * compressed answers asked for, at most {@code replyBytes} of a body read (then the connection is closed), new
 * connections only to the addresses {@link CheckedAddresses} judged for them (no second lookup), TLS with the JVM's
 * trusted certificates and host name verification. Connections to an origin are reused newest first, so the ones a
 * burst opened go idle and are closed after {@code idleMillis}. How many exchanges run per origin is the
 * {@link OriginGate}'s concern; this client opens a connection for each exchange that finds none idle.
 */
final class WebhookClient implements AutoCloseable {

    /** What a webhook answered: its status, the headers a result needs, at most {@code replyBytes} of its body. */
    record Answer(int status, String body, String location, String retryAfter) {
    }

    /** One POST to send: the URL, the headers beyond Host, Content-Type and Content-Length, and the body. */
    static final class Request {
        private final URI uri;
        private final byte[] body;
        private final StringBuilder head = new StringBuilder(512);

        Request(URI uri, byte[] body) {
            this.uri = uri;
            this.body = body;
        }

        /** Adds a header; a value with a line break or another control character is refused (header injection). */
        Request header(String name, String value) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if ((c < 0x20 && c != '\t') || c == 0x7f || c > 0xff) {
                    throw new IllegalArgumentException("header " + name + " has a character HTTP cannot carry");
                }
            }
            head.append(name).append(": ").append(value).append("\r\n");
            return this;
        }

        /** The request line and headers, as written on the wire. */
        byte[] head(String hostHeader) {
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            String target = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
            String text = "POST " + target + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nUser-Agent: trigger-outbox\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n" + head + "\r\n";
            return text.getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    private static final Logger LOG = Logger.getLogger(WebhookClient.class.getName());
    /** The event loops: enough for the two cores this runs on, few enough to keep each loop busy. */
    static final int EVENT_LOOPS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    /**
     * Linux's epoll through Netty's native transport (bundled for x86-64 Linux; Netty copies it to the temporary
     * directory and loads it), else the JDK's NIO: measured, epoll costs the server about 2 µs less of kernel time
     * per webhook (docs/BENCHMARKS.md#webhook-2026-12-07). {@code -Dio.netty.transport.noNative=true} forces NIO.
     */
    static final boolean EPOLL = Epoll.isAvailable();
    /** An answer's status line and headers may be this long; longer ones fail the attempt. */
    private static final int MAX_HEAD_BYTES = 16 * 1024;

    private final boolean epoll;
    private final EventLoopGroup loops;
    private final Bootstrap plain;
    private final Bootstrap tls;
    private final SslContext tlsContext;
    private final CheckedAddresses addresses;
    private final Duration connectTimeout;
    private final int replyBytes;
    private final long idleNanos;
    private final Map<String, Origin> origins = new ConcurrentHashMap<>();

    /**
     * @param trust the certificates TLS trusts: null for the JVM's default trust store (tests pass their own)
     */
    WebhookClient(Duration connectTimeout, long idleMillis, int replyBytes, CheckedAddresses addresses,
            ThreadFactory threads, javax.net.ssl.TrustManagerFactory trust) {
        this(connectTimeout, idleMillis, replyBytes, addresses, threads, trust, EPOLL);
    }

    /** As above, on epoll or on NIO as told (tests run both). */
    WebhookClient(Duration connectTimeout, long idleMillis, int replyBytes, CheckedAddresses addresses,
            ThreadFactory threads, javax.net.ssl.TrustManagerFactory trust, boolean epoll) {
        this.epoll = epoll;
        this.connectTimeout = connectTimeout;
        this.replyBytes = replyBytes;
        this.addresses = addresses;
        try {
            this.tlsContext = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(trust).build();
        } catch (SSLException e) {
            throw new IllegalStateException("TLS for webhooks could not be set up: " + e.getMessage(), e);
        }
        this.loops = new MultiThreadIoEventLoopGroup(EVENT_LOOPS, threads,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
        LOG.info(() -> "webhook client: " + EVENT_LOOPS + " event loop(s) on " + (epoll
                ? "Linux epoll (Netty's native transport)"
                : "the JDK's NIO (Netty's native epoll transport: " + Epoll.unavailabilityCause() + ")"));
        this.plain = bootstrap(false);
        this.tls = bootstrap(true);
    }

    private Bootstrap bootstrap(boolean secure) {
        return new Bootstrap().group(loops)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .resolver(NoopAddressResolverGroup.INSTANCE) // CheckedAddresses resolved and judged the address
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        Origin origin = ch.attr(Connection.ORIGIN).get();
                        if (secure) {
                            SSLEngine engine = tlsContext.newEngine(ch.alloc(), origin.host, origin.port);
                            SSLParameters p = engine.getSSLParameters();
                            p.setEndpointIdentificationAlgorithm("HTTPS");
                            engine.setSSLParameters(p);
                            ch.pipeline().addLast(new SslHandler(engine));
                        }
                        ch.pipeline().addLast(new HttpResponseDecoder(4096, MAX_HEAD_BYTES, 64 * 1024),
                                new Connection(origin));
                    }
                });
    }

    /**
     * Sends {@code request}; the answer completes on an event loop. The whole exchange (a lookup, a connection, the
     * request and its answer) must end within {@code timeout}, else it fails with a {@link TimeoutException}.
     * Completing the returned future from outside (e.g. exceptionally, on the dispatcher's timeout) ends the
     * exchange and closes its connection.
     */
    CompletableFuture<Answer> post(Request request, Duration timeout) {
        URI uri = request.uri;
        boolean secure = "https".equalsIgnoreCase(uri.getScheme());
        int port = uri.getPort() != -1 ? uri.getPort() : secure ? 443 : 80;
        String host = uri.getHost();
        String key = (secure ? "https://" : "http://") + host.toLowerCase(Locale.ROOT) + ":" + port;
        Origin origin = origins.computeIfAbsent(key, k -> new Origin(host, port, secure));
        Exchange x = new Exchange(origin, request.head(origin.hostHeader), request.body,
                System.nanoTime() + timeout.toNanos(),
                timeout.toMillis());
        x.answer.whenComplete((a, e) -> x.ended(e != null));
        Channel idle = origin.takeIdle();
        if (idle != null) {
            begin(x, idle, true);
        } else {
            // the lookup and the connection count against the exchange's time too
            x.timeOut(loops.next());
            connect(x);
        }
        return x.answer;
    }

    /**
     * From now on, every {@code millis}, runs {@code task} on an event loop (until the client is closed), and closes
     * the connections unused for the idle time (the receiver's resources go back).
     */
    void every(long millis, Runnable task) {
        loops.scheduleAtFixedRate(() -> {
            task.run();
            long now = System.nanoTime();
            origins.values().forEach(o -> o.closeIdle(now - idleNanos));
            origins.values().removeIf(Origin::forgettable);
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        // connections close, and the exchanges on them fail (their rows come back: retried, or after the lease)
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private void connect(Exchange x) {
        addresses.resolve(x.origin.host, x.origin.port).whenComplete((found, e) -> {
            if (e != null) {
                x.fail(e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                        ? e.getCause()
                        : e);
            } else {
                connect(x, found, 0);
            }
        });
    }

    /** Tries the checked addresses in turn, as a client does when one of them does not answer. */
    private void connect(Exchange x, List<InetSocketAddress> found, int next) {
        if (x.answer.isDone()) {
            return;
        }
        ChannelFuture connecting;
        try {
            Bootstrap b = (x.origin.secure ? tls : plain).clone();
            b.attr(Connection.ORIGIN, x.origin);
            connecting = b.connect(found.get(next));
        } catch (RuntimeException e) { // the loops are shutting down
            x.fail(e);
            return;
        }
        connecting.addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                begin(x, f.channel(), false);
            } else if (next + 1 < found.size() && !x.answer.isDone()) {
                connect(x, found, next + 1);
            } else {
                x.fail(f.cause() instanceof io.netty.channel.ConnectTimeoutException
                        ? new SocketTimeoutException("connect timed out")
                        : f.cause());
            }
        });
    }

    /** Starts {@code x} on {@code ch}, on the channel's loop; {@code reused}: the connection served an exchange before. */
    private void begin(Exchange x, Channel ch, boolean reused) {
        EventLoop loop = ch.eventLoop();
        if (!loop.inEventLoop()) {
            loop.execute(() -> begin(x, ch, reused));
            return;
        }
        Connection c = (Connection) ch.pipeline().last();
        if (x.answer.isDone()) { // given up on before it started: the connection stays for another
            if (ch.isActive()) {
                x.origin.giveBack(ch);
            }
            return;
        }
        if (!ch.isActive()) { // closed while idle (by the receiver): a new one
            if (x.timer == null) {
                x.timeOut(loop);
            }
            connect(x);
            return;
        }
        x.reused = reused;
        x.channel = ch;
        c.exchange = x;
        if (x.timer == null) {
            x.timeOut(loop); // on the connection's own loop: set and cancelled there, with no other thread involved
        }
        ByteBuf out = ch.alloc().ioBuffer(x.head.length + x.body.length);
        out.writeBytes(x.head).writeBytes(x.body);
        ch.writeAndFlush(out).addListener(f -> {
            if (!f.isSuccess() && c.exchange == x) {
                c.failed(ch, f.cause());
            }
        });
    }

    /** One origin's connections: the idle ones, newest last, each with the time it went idle. */
    private static final class Origin {
        final String host;
        final int port;
        final boolean secure;
        final String hostHeader;
        private final ArrayDeque<Channel> idle = new ArrayDeque<>();
        private final ArrayDeque<Long> idleSince = new ArrayDeque<>();
        private int open;

        Origin(String host, int port, boolean secure) {
            // java.net.URI keeps an IPv6 literal's brackets in the host: the Host header wants them, a connection not
            this.host = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
            this.port = port;
            this.secure = secure;
            this.hostHeader = port == (secure ? 443 : 80) ? host : host + ":" + port;
        }

        synchronized Channel takeIdle() {
            Channel ch;
            while ((ch = idle.pollLast()) != null) {
                idleSince.pollLast();
                if (ch.isActive()) {
                    return ch;
                }
            }
            return null;
        }

        synchronized void giveBack(Channel ch) {
            idle.addLast(ch);
            idleSince.addLast(System.nanoTime());
        }

        /** Closes the connections idle since before {@code before} (nanoTime): the oldest are first. */
        synchronized void closeIdle(long before) {
            while (!idle.isEmpty() && idleSince.peekFirst() - before < 0) {
                idleSince.pollFirst();
                idle.pollFirst().close();
            }
        }

        synchronized void opened() {
            open++;
        }

        synchronized void closed(Channel ch) {
            open--;
            // rarely idle (a receiver closed it while unused): found by walking the two lists side by side
            var c = idle.iterator();
            var t = idleSince.iterator();
            while (c.hasNext()) {
                t.next();
                if (c.next() == ch) {
                    c.remove();
                    t.remove();
                    return;
                }
            }
        }

        /** No connection open: nothing to keep (a later exchange makes it anew). */
        synchronized boolean forgettable() {
            return open == 0;
        }
    }

    /** One request and what has come of its answer so far; its fields are the event loop's, once it has begun. */
    private final class Exchange {
        final Origin origin;
        final byte[] head;
        final byte[] body;
        final CompletableFuture<Answer> answer = new CompletableFuture<>();
        volatile Channel channel;
        volatile ScheduledFuture<?> timer;
        boolean reused;
        boolean answering;
        boolean interim;
        int status;
        String location;
        String retryAfter;
        boolean keepAlive;
        ByteArrayOutputStream reply; // most answers have no body: made on the first byte

        final long deadlineNanos;
        final long timeoutMillis;

        Exchange(Origin origin, byte[] head, byte[] body, long deadlineNanos, long timeoutMillis) {
            this.origin = origin;
            this.head = head;
            this.body = body;
            this.deadlineNanos = deadlineNanos;
            this.timeoutMillis = timeoutMillis;
        }

        /** Fails the exchange, on {@code loop}, if it has not ended by its deadline. */
        void timeOut(EventLoop loop) {
            timer = loop.schedule(() -> fail(new TimeoutException("no answer within " + timeoutMillis + " ms")),
                    Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }

        void fail(Throwable e) {
            answer.completeExceptionally(e);
        }

        /**
         * The answer is settled (here, by the caller, or by the timer): a failed exchange takes its connection along,
         * on the connection's loop and only while the connection still carries it.
         */
        void ended(boolean failed) {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
            Channel ch = channel;
            if (failed && ch != null) {
                ch.eventLoop().execute(() -> {
                    if (ch.pipeline().last() instanceof Connection c && c.exchange == this) {
                        c.exchange = null;
                        ch.close();
                    }
                });
            }
        }
    }

    /** The last handler of a connection: reads the answer of the exchange it carries, then gives itself back. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        static final io.netty.util.AttributeKey<Origin> ORIGIN = io.netty.util.AttributeKey
                .valueOf("trigger-outbox.origin");
        private final Origin origin;
        Exchange exchange;

        Connection(Origin origin) {
            this.origin = origin;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                read(ctx.channel(), msg);
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void read(Channel ch, Object msg) {
            Exchange x = exchange;
            if (x == null) { // bytes nobody asked for: the connection is out of step
                ch.close();
                return;
            }
            if (msg instanceof HttpResponse r) {
                if (r.decoderResult().isFailure()) {
                    failed(ch, new IOException("unreadable answer: " + r.decoderResult().cause().getMessage()));
                    return;
                }
                int code = r.status().code();
                // an interim answer (100 Continue, 103 Early Hints) comes before the real one
                x.interim = code >= 100 && code < 200;
                if (!x.interim) {
                    x.answering = true;
                    x.status = code;
                    x.location = r.headers().get(HttpHeaderNames.LOCATION);
                    x.retryAfter = r.headers().get(HttpHeaderNames.RETRY_AFTER);
                    x.keepAlive = HttpUtil.isKeepAlive(r);
                }
            }
            if (msg instanceof HttpContent c && !x.interim) {
                if (c.decoderResult().isFailure()) {
                    failed(ch, new IOException("unreadable answer: " + c.decoderResult().cause().getMessage()));
                    return;
                }
                ByteBuf content = c.content();
                if (content.isReadable()) {
                    if (x.reply == null) {
                        x.reply = new ByteArrayOutputStream(
                                Math.min(replyBytes, Math.max(content.readableBytes(), 256)));
                    }
                    int take = Math.min(replyBytes - x.reply.size(), content.readableBytes());
                    byte[] chunk = new byte[take];
                    content.readBytes(chunk);
                    x.reply.write(chunk, 0, take);
                    if (content.isReadable()) { // past the limit: enough of it
                        done(ch, x, false);
                        return;
                    }
                }
            }
            if (msg instanceof LastHttpContent) {
                if (x.interim) {
                    x.interim = false;
                } else {
                    done(ch, x, x.keepAlive);
                }
            }
        }

        private void done(Channel ch, Exchange x, boolean keep) {
            exchange = null;
            x.channel = null; // settled well: its connection is not its to close any more
            if (keep && ch.isActive()) {
                origin.giveBack(ch);
            } else {
                ch.close();
            }
            // a multi-byte character cut at the limit decodes as U+FFFD, which is fine for a reply or a snippet
            String body = x.reply == null ? null : x.reply.toString(StandardCharsets.UTF_8);
            x.answer.complete(new Answer(x.status, body, x.location, x.retryAfter));
        }

        void failed(Channel ch, Throwable e) {
            Exchange x = exchange;
            exchange = null;
            ch.close();
            if (x != null) {
                x.fail(e);
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            origin.opened();
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            origin.closed(ctx.channel());
            Exchange x = exchange;
            exchange = null;
            if (x != null && !x.answer.isDone()) {
                if (x.reused && !x.answering) {
                    // a kept-alive connection the receiver closed as the request went out (its idle timeout): the
                    // request was not taken, so it goes once more, on a new connection
                    x.channel = null;
                    x.reused = false;
                    connect(x);
                } else {
                    x.fail(new ConnectException("the connection was closed before the answer ended"));
                }
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable e = cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null
                    ? cause.getCause()
                    : cause;
            failed(ctx.channel(), e);
        }

    }
}
