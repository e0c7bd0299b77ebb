package dev.triggeroutbox.targets.control;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Remembers a value computed from a key, for values that never go stale (a URL's checked form, a secret's
 * signer), so that each delivery looks them up instead of computing them again. At most {@code max} keys:
 * one more starts the memory afresh, which is cheap and keeps it bounded whatever the rows name.
 */
final class BoundedMemo<K, V> {

    private final Map<K, V> values = new ConcurrentHashMap<>();
    private final int max;
    private final Function<K, V> compute;

    BoundedMemo(int max, Function<K, V> compute) {
        this.max = max;
        this.compute = compute;
    }

    /** The value for {@code key}; a compute that throws remembers nothing. */
    V get(K key) {
        V v = values.get(key);
        if (v == null) {
            if (values.size() >= max) {
                values.clear();
            }
            v = compute.apply(key);
            values.put(key, v);
        }
        return v;
    }
}
