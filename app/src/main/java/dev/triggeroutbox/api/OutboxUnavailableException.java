package dev.triggeroutbox.api;

/**
 * The outbox could not do a call because its database failed it: unreachable, out of connections, or an error of
 * its own. Nothing is written (in your transaction, the call marks it for rollback). The message is ours and never
 * carries SQL or the database's text; the database's exception is the cause, for your log. Trying again later can
 * help when the database was unreachable; the REST API answers that case 503 {@code unavailable}.
 */
public class OutboxUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public OutboxUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
