package dev.triggeroutbox.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** Ports on the loopback, which the servers and receivers of the tests and harnesses listen on. */
public final class Ports {

    private Ports() {
    }

    /** Whether something accepts connections on the loopback port (e.g. an earlier run's server still up). */
    public static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
