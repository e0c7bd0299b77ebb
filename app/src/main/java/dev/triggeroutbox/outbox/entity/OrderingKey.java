package dev.triggeroutbox.outbox.entity;

/**
 * The rule for an ordering key: 1 to {@value #MAX_LENGTH} characters. Rows of one trigger with the same key form a
 * lane, delivered one at a time in enqueue order; rows without a key are in no lane.
 */
public final class OrderingKey {

    public static final int MAX_LENGTH = 200;

    private OrderingKey() {
    }

    /** Why {@code key} is not an ordering key, or null when it is one (or is null: no key). */
    public static String problem(String key) {
        if (key == null) {
            return null;
        }
        int length = key.codePointCount(0, key.length());
        if (length < 1 || length > MAX_LENGTH) {
            return "must be 1 to " + MAX_LENGTH + " characters";
        }
        return key.indexOf('\0') >= 0 ? "must not contain NUL characters" : null;
    }

    /** Refuses a key that breaks the rule, with {@link IllegalArgumentException}. */
    public static void check(String key) {
        String problem = problem(key);
        if (problem != null) {
            throw new IllegalArgumentException("orderingKey " + problem);
        }
    }
}
