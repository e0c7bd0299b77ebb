package dev.triggeroutbox.triggers.control;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.rest.control.JsonBody;
import dev.triggeroutbox.targets.control.HandlerTarget;
import dev.triggeroutbox.targets.control.JmsTarget;
import dev.triggeroutbox.targets.control.KafkaTarget;
import dev.triggeroutbox.targets.control.WebhookAddressPolicy;
import dev.triggeroutbox.targets.control.WebhookSettings;
import dev.triggeroutbox.targets.entity.KafkaKey;
import dev.triggeroutbox.triggers.entity.TargetType;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a trigger target must look like, per type: a webhook URL, a handler name, a JMS destination, a Kafka topic. */
@ApplicationScoped
public class TargetRules {

    @Inject
    HandlerTarget handlers;

    @Inject
    WebhookSettings webhooks;

    @Inject
    JmsTarget jms;

    @Inject
    KafkaTarget kafka;

    /** The JSON field that carries the target of this type. */
    public static String field(TargetType type) {
        return switch (type) {
            case WEBHOOK -> "url";
            case HANDLER -> "name";
            case JMS -> "destination";
            case KAFKA -> "topic";
        };
    }

    /** The record key of a kafka target ({@code key}, optional: rowId); refused on the other types. */
    public KafkaKey key(TargetType type, JsonBody target) {
        if (type != TargetType.KAFKA) {
            if (target.present("key")) {
                target.error("key", "applies only to kafka targets");
            }
            return null;
        }
        return target.parsed("key", false, w -> KafkaKey.fromWire(w).orElseThrow(IllegalArgumentException::new),
                "must be one of orderingKey, rowId, appId");
    }

    /** Reads the one field this type needs, refusing the others. */
    public String read(TargetType type, JsonBody target) {
        String wanted = field(type);
        for (TargetType other : TargetType.values()) {
            if (other != type && target.string(field(other), false) != null) {
                target.error(field(other), "does not apply to a " + type.wire() + " target (it takes " + wanted + ")");
            }
        }
        String value = target.string(wanted, true);
        if (value != null && (value.isBlank() || value.length() > 2048)) {
            target.error(wanted, "must be 1 to 2048 characters");
            return null;
        }
        return value;
    }

    /** Checks what a target points at; runs after the body parsed cleanly. */
    public void check(TargetType type, String target) {
        if (type == TargetType.WEBHOOK) {
            checkUrl(target);
        } else if (type == TargetType.HANDLER && !handlers.exists(target)) {
            throw OutboxRefusedException.unprocessable("handler-unknown",
                    "no handler named '" + target + "' is deployed");
        } else if (type == TargetType.JMS) {
            jms.refusal(target).ifPresent(r -> {
                throw OutboxRefusedException.unprocessable(r.type(), r.detail());
            });
        } else if (type == TargetType.KAFKA) {
            checkTopic(target);
        }
    }

    /** The port at the end of an authority (a bracketed IPv6 address ends with {@code ]}, so it never matches). */
    private static final Pattern PORT = Pattern.compile(":(\\d+)$");

    /** The SSRF guard, at registration: the same policy every delivery checks again. */
    private void checkUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw OutboxRefusedException.invalid("target.url", "must be an absolute http or https URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
        if (!(scheme.equals("http") || scheme.equals("https"))
                || (uri.getHost() == null && uri.getRawAuthority() == null)) {
            throw OutboxRefusedException.invalid("target.url", "must be an absolute http or https URL");
        }
        Matcher port = PORT.matcher(uri.getRawAuthority() == null ? "" : uri.getRawAuthority());
        if (port.find() && (port.group(1).length() > 5 || !validPort(Integer.parseInt(port.group(1))))) {
            throw OutboxRefusedException.invalid("target.url", "must have a port between 1 and 65535");
        }
        WebhookAddressPolicy.Verdict verdict = webhooks.addressPolicy().check(url);
        if (!verdict.allowed()) {
            throw OutboxRefusedException.unprocessable("webhook-address-refused", verdict.refusal());
        }
    }

    /** Kafka's own rule for topic names: 1 to 249 of letters, digits, '.', '_' and '-', not "." or "..". */
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    /** A legal topic name, and a producer to send to it. Whether the topic exists is the broker's to say, at delivery. */
    private void checkTopic(String topic) {
        if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw OutboxRefusedException.invalid("target.topic",
                    "must be 1 to 249 letters, digits, '.', '_' or '-' (Kafka's topic names)");
        }
        kafka.refusal().ifPresent(detail -> {
            throw OutboxRefusedException.unprocessable("kafka-unavailable", detail);
        });
    }

    private static boolean validPort(int port) {
        return port >= 1 && port <= 65_535;
    }
}
