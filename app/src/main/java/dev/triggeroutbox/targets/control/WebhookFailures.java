package dev.triggeroutbox.targets.control;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * Names the ways an HTTP exchange fails before any answer, in a sentence for {@code last_error}. The
 * exceptions are the webhook client's (Jetty): a {@link SocketTimeoutException} when a connection is not
 * made in time, a {@link TimeoutException} when the whole exchange is not.
 */
final class WebhookFailures {

    private WebhookFailures() {
    }

    static String describe(Throwable thrown, String host, Duration timeout, Duration connectTimeout) {
        Throwable e = unwrap(thrown);
        if (e instanceof SocketTimeoutException) {
            return "could not connect to " + host + " within " + connectTimeout.toMillis() + " ms";
        }
        if (e instanceof TimeoutException) {
            return "webhook at " + host + " did not answer within " + timeout.toMillis() + " ms";
        }
        if (e instanceof ConnectException) {
            return "could not connect to " + host + detail(e);
        }
        if (e instanceof UnknownHostException || e instanceof UnresolvedAddressException) {
            return "host " + host + " cannot be resolved";
        }
        if (e instanceof CheckedAddresses.Refused) {
            return e.getMessage();
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
        return e instanceof TimeoutException // no answer in time, also the dispatcher's delivery timeout
                || e instanceof SocketTimeoutException // no connection in time
                || e instanceof ConnectException
                || e instanceof CancellationException;
    }

    /** The address policy's sentence when the connection was refused by it (permanent), else null. */
    static String refusal(Throwable thrown) {
        Throwable e = unwrap(thrown);
        return e instanceof CheckedAddresses.Refused ? e.getMessage() : null;
    }

    private static Throwable unwrap(Throwable thrown) {
        Throwable e = thrown;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
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
