package dev.triggeroutbox.email.control;

/** An inbound mail that cannot be read; the message says what is wrong, in the sender's terms. */
public class MalformedMailException extends Exception {

    private static final long serialVersionUID = 1L;

    public MalformedMailException(String message) {
        super(message, null, false, false);
    }
}
