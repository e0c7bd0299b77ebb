package dev.triggeroutbox.api;

/** Thrown by a handler when retrying cannot help: the row is dead-lettered at once with this message. */
public class PermanentDeliveryException extends Exception {

    private static final long serialVersionUID = 1L;

    public PermanentDeliveryException(String message) {
        super(message);
    }

    public PermanentDeliveryException(String message, Throwable cause) {
        super(message, cause);
    }
}
