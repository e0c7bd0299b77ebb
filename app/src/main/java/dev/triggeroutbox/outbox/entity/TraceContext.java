package dev.triggeroutbox.outbox.entity;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A W3C Trace Context (https://www.w3.org/TR/trace-context/) as a row carries it from its producer to
 * every delivery: the {@code traceparent} header, normalised to version 00, and the {@code tracestate}
 * that came with it (null when there was none). Build it with {@link #parse}, which follows the
 * recommendation's rules for a receiver: a malformed {@code traceparent} is ignored (the request is not
 * refused, it only starts no trace here), and a malformed {@code tracestate} is dropped on its own.
 */
public record TraceContext(String traceparent, String tracestate) {

    /** The longest {@code tracestate} kept; the recommendation asks to pass on at least 512 characters. */
    public static final int MAX_TRACESTATE = 512;

    // version, trace id, parent id, flags; a later version may append fields after a '-'
    private static final Pattern PARENT = Pattern
            .compile("([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?");
    private static final Pattern MEMBER = Pattern.compile(
            "([a-z][a-z0-9_\\-*/]{0,255}|[a-z0-9][a-z0-9_\\-*/]{0,240}@[a-z][a-z0-9_\\-*/]{0,13})"
                    + "=([\\x20-\\x2b\\x2d-\\x3c\\x3e-\\x7e]{0,255}[\\x21-\\x2b\\x2d-\\x3c\\x3e-\\x7e])");
    private static final int MAX_MEMBERS = 32;

    /**
     * The context of the given header values, or null when {@code traceparent} is absent or malformed
     * (unknown layout, upper-case hex, an all-zero id, version ff, a version 00 header with more fields).
     * {@code tracestate} is kept only when every list member is well formed, the keys are unique and there
     * are at most 32; members are dropped from the end while it is longer than {@link #MAX_TRACESTATE}.
     */
    public static TraceContext parse(String traceparent, String tracestate) {
        if (traceparent == null) {
            return null;
        }
        var m = PARENT.matcher(traceparent.strip());
        if (!m.matches()) {
            return null;
        }
        String version = m.group(1);
        String traceId = m.group(2);
        String parentId = m.group(3);
        if (version.equals("ff") || (version.equals("00") && m.group(5) != null)
                || traceId.chars().allMatch(c -> c == '0') || parentId.chars().allMatch(c -> c == '0')) {
            return null;
        }
        return new TraceContext("00-" + traceId + "-" + parentId + "-" + m.group(4), state(tracestate));
    }

    /** The trace id: 32 lower-case hex digits. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    private static String state(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        List<String> members = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (String part : header.split(",", -1)) {
            String member = part.strip();
            if (member.isEmpty()) {
                continue; // empty list members are allowed and carry nothing
            }
            var m = MEMBER.matcher(member);
            if (!m.matches() || keys.contains(m.group(1))) {
                return null;
            }
            keys.add(m.group(1));
            members.add(member);
        }
        if (members.isEmpty() || members.size() > MAX_MEMBERS) {
            return null;
        }
        String joined = String.join(",", members);
        while (joined.length() > MAX_TRACESTATE && members.size() > 1) {
            members.remove(members.size() - 1);
            joined = String.join(",", members);
        }
        return joined.length() > MAX_TRACESTATE ? null : joined;
    }

    @Override
    public String toString() {
        return traceparent;
    }
}
