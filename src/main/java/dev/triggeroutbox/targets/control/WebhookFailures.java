package dev.triggeroutbox.targets.control;

import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;

/** Names the ways an HTTP exchange fails before any answer, in a sentence for {@code last_error}. */
final class WebhookFailures {

    private WebhookFailures() {
    }

    static String describe(Throwable thrown, String host, Duration timeout, Duration connectTimeout) {
        Throwable e = unwrap(thrown);
        if (e instanceof HttpConnectTimeoutException) {
            return "could not connect to " + host + " within " + connectTimeout.toMillis() + " ms";
        }
        if (e instanceof HttpTimeoutException) {
            return "webhook at " + host + " did not answer within " + timeout.toMillis() + " ms";
        }
        if (e instanceof ConnectException) {
            return "could not connect to " + host + detail(e);
        }
        if (e instanceof UnknownHostException || e instanceof UnresolvedAddressException) {
            return "host " + host + " cannot be resolved";
        }
        if (e instanceof SSLException) {
            return "TLS with " + host + " failed" + detail(e);
        }
        if (e instanceof CancellationException) {
            return "webhook request to " + host + " was cancelled";
        }
        if (e instanceof IOException) {
            return "webhook request to " + host + " failed" + detail(e);
        }
        return "webhook request to " + host + " failed: " + e.getClass().getSimpleName() + detail(e);
    }

    /**
     * Whether the failure says the origin could not be reached at all (refused, or no answer in
     * time), as opposed to an answer that went wrong: what opens its circuit.
     */
    static boolean unreachable(Throwable thrown) {
        Throwable e = unwrap(thrown);
        return e instanceof HttpTimeoutException // the connect timeout too
                || e instanceof ConnectException
                || e instanceof CancellationException; // given up on by the delivery timeout
    }

    private static Throwable unwrap(Throwable thrown) {
        Throwable e = thrown;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        // the JDK client wraps the real cause of a connect failure in a bare ConnectException
        if (e instanceof ConnectException && e.getMessage() == null && e.getCause() != null) {
            Throwable cause = e.getCause();
            if (cause instanceof UnresolvedAddressException || cause instanceof UnknownHostException) {
                return cause;
            }
        }
        return e;
    }

    private static String detail(Throwable e) {
        String message = e.getMessage();
        if (message == null && e.getCause() != null) {
            message = e.getCause().getMessage();
        }
        return message == null || message.isBlank() ? "" : ": " + WebhookReplies.snippet(message);
    }
}
