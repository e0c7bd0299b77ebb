package dev.triggeroutbox.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * Something for the demo to deliver to on a machine without internet: a webhook receiver on 127.0.0.1 that prints
 * each delivery it gets (its Standard Webhooks headers and body) and answers 204. The demo server allow-lists
 * 127.0.0.1 for it (webhooks to loopback are refused otherwise).
 */
final class DemoReceiver implements AutoCloseable {

    private final HttpServer server;

    DemoReceiver(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "demo-receiver");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", this::receive);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    private void receive(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        var h = exchange.getRequestHeaders();
        System.out.printf("%n[demo receiver] %s %s: webhook-id %s, attempt %s, app %s, kind %s%n"
                + "[demo receiver]   webhook-timestamp %s, webhook-signature %s%n[demo receiver]   %s%n%n",
                exchange.getRequestMethod(), exchange.getRequestURI(), h.getFirst("webhook-id"),
                h.getFirst("outbox-attempt"),
                h.getFirst("outbox-app-id"), h.getFirst("outbox-source-kind"), h.getFirst("webhook-timestamp"),
                h.getFirst("webhook-signature"), body);
        exchange.sendResponseHeaders(204, -1);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
