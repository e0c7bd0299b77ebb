package dev.triggeroutbox.bench;

import dev.triggeroutbox.testkit.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fast webhook receiver: Debian's nginx from a configuration written under bench/target, answering
 * every request with 204 at once (the body is read and dropped), on 127.0.0.1. Its {@code stub_status}
 * page counts the connections it accepted, so a part can say how many connections a client opened.
 */
final class Nginx implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/sbin/nginx");
    static final int PORT = 18_470;

    private final Path prefix;
    private final int workers;
    private Process process;

    Nginx(Path target, int workers) {
        this.prefix = target.resolve("nginx");
        this.workers = workers;
    }

    static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    String url(String path) {
        return "http://127.0.0.1:" + PORT + path;
    }

    int workers() {
        return workers;
    }

    void start() throws IOException, InterruptedException {
        if (Ports.listening(PORT)) {
            throw new IllegalStateException(
                    "port " + PORT + " is in use: is an earlier benchmark nginx still running?");
        }
        Files.createDirectories(prefix.resolve("temp"));
        Files.createDirectories(prefix.resolve("logs"));
        Path conf = prefix.resolve("nginx.conf");
        String t = prefix.resolve("temp").toString();
        Files.writeString(conf, """
                daemon off;
                worker_processes %d;
                pid %s/nginx.pid;
                error_log %s/logs/error.log warn;
                events { worker_connections 8192; multi_accept on; }
                http {
                    access_log off;
                    client_body_temp_path %s/body;
                    proxy_temp_path %s/proxy;
                    fastcgi_temp_path %s/fastcgi;
                    uwsgi_temp_path %s/uwsgi;
                    scgi_temp_path %s/scgi;
                    keepalive_requests 1000000;
                    keepalive_timeout 120s;
                    client_body_buffer_size 64k;
                    server {
                        listen 127.0.0.1:%d backlog=4096;
                        location = /nginx-status { stub_status; }
                        location / { return 204; }
                    }
                }
                """.formatted(workers, prefix, prefix, t, t, t, t, t, PORT));
        process = new ProcessBuilder(BINARY.toString(), "-p", prefix.toString(), "-c", conf.toString())
                .redirectErrorStream(true).redirectOutput(prefix.resolve("logs/console.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Ports.listening(PORT)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "nginx exited with " + process.exitValue() + "; see " + prefix.resolve("logs"));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("nginx did not listen on " + PORT + " within 20 s");
            }
            Thread.sleep(50);
        }
    }

    /** Connections open now, the status request's own not counted (stub_status "Active connections"). */
    long active() throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String status = client
                .send(HttpRequest.newBuilder(URI.create(url("/nginx-status"))).timeout(Duration.ofSeconds(5))
                        .build(), HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = Pattern.compile("Active connections:\\s*(\\d+)").matcher(status);
        if (!m.find()) {
            throw new IllegalStateException("unexpected nginx status: " + status);
        }
        return Long.parseLong(m.group(1)) - 1;
    }

    /** Stops nginx (SIGTERM: fast shutdown) and waits for it. Safe to call twice. */
    @Override
    public synchronized void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        Server.awaitExit(process, 10);
        process = null;
    }
}
