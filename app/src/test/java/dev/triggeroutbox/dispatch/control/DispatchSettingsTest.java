package dev.triggeroutbox.dispatch.control;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** The dispatcher's settings as declared: their defaults deploy, and a value out of range refuses the deployment. */
class DispatchSettingsTest {

    @Test
    void theDeclaredDefaultsPass() {
        DispatchSettings s = declared(Map.of());
        assertDoesNotThrow(s::check);
        assertEquals(5, s.notifyIntervalMillis());
        assertEquals(1_000, s.appShare(), "half the concurrency");
    }

    @Test
    void theNotifyIntervalIsZeroToOneSecond() {
        assertDoesNotThrow(declared(Map.of("outbox.dispatch.notify-interval-ms", "0"))::check);
        assertDoesNotThrow(declared(Map.of("outbox.dispatch.notify-interval-ms", "1000"))::check);
        refused("outbox.dispatch.notify-interval-ms", "-1", "outbox.dispatch.notify-interval-ms must be 0..1000");
        refused("outbox.dispatch.notify-interval-ms", "1001", "outbox.dispatch.notify-interval-ms must be 0..1000");
    }

    @Test
    void valuesOutOfRangeAreRefusedByName() {
        refused("outbox.dispatch.poll-interval-ms", "9", "outbox.dispatch.poll-interval-ms must be at least 10");
        refused("outbox.dispatch.batch-size", "0", "outbox.dispatch.batch-size must be 1..10000");
        refused("outbox.dispatch.concurrency", "0", "outbox.dispatch.concurrency must be at least 1");
        refused("outbox.dispatch.app-max-in-flight", "2001", "outbox.dispatch.app-max-in-flight must be 0");
        refused("outbox.dispatch.trigger-max-in-flight", "1001", "outbox.dispatch.trigger-max-in-flight must be 0");
        refused("outbox.dispatch.lease-ms", "30000", "outbox.dispatch.lease-ms must be greater than");
        refused("outbox.dispatch.shutdown-grace-ms", "-1", "outbox.dispatch.shutdown-grace-ms must be 0 or more");
        refused("outbox.retry.max-attempts", "0", "outbox.retry.max-attempts must be 1..1000");
    }

    private static void refused(String key, String value, String message) {
        IllegalStateException e = assertThrows(IllegalStateException.class, declared(Map.of(key, value))::check,
                key + "=" + value + " was accepted");
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    /** The settings as MicroProfile Config would inject them: each key's declared default unless given. */
    private static DispatchSettings declared(Map<String, String> given) {
        DispatchSettings s = new DispatchSettings();
        for (Field f : DispatchSettings.class.getDeclaredFields()) {
            ConfigProperty key = f.getAnnotation(ConfigProperty.class);
            if (key == null) {
                continue;
            }
            String value = given.getOrDefault(key.name(),
                    ConfigProperty.UNCONFIGURED_VALUE.equals(key.defaultValue()) ? null : key.defaultValue());
            try {
                f.setAccessible(true);
                if (f.getType() == long.class) {
                    f.setLong(s, Long.parseLong(value));
                } else if (f.getType() == int.class) {
                    f.setInt(s, Integer.parseInt(value));
                } else if (f.getType() == boolean.class) {
                    f.setBoolean(s, Boolean.parseBoolean(value));
                } else if (f.getType() == Optional.class) {
                    f.set(s, Optional.ofNullable(value));
                } else {
                    throw new AssertionError("a setting of a type this test does not know: " + f);
                }
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
        return s;
    }
}
