package dev.triggeroutbox.testkit;

import static dev.triggeroutbox.testkit.ItUsers.ADMIN;
import static dev.triggeroutbox.testkit.ItUsers.PASSWORD;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Requests written by hand on a socket, so that a test chooses every byte of them (also {@code Host}, also
 * headers and bodies no HTTP client would send).
 */
public final class RawRequests {

    private RawRequests() {
    }

    /**
     * Sends one request to {@code api/v1/<path>} of the deployment, signed in as the admin unless {@code headers}
     * set {@code Authorization}, and returns the whole answer, status line first.
     */
    public static String send(URL base, String method, String path, Map<String, String> headers, byte[] body)
            throws IOException {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Host", base.getHost() + ":" + base.getPort());
        all.put("Authorization", "Basic "
                + Base64.getEncoder().encodeToString((ADMIN + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)));
        all.putAll(headers);
        all.put("Content-Length", Integer.toString(body.length));
        all.put("Connection", "close");
        StringBuilder head = new StringBuilder(method + " " + base.getPath() + "api/v1/" + path + " HTTP/1.1\r\n");
        all.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
