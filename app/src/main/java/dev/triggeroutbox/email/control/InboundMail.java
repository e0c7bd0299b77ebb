package dev.triggeroutbox.email.control;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * An inbound mail as the {@code email} event carries it: addresses as {@code Name <local@domain>}
 * (decoded), the text and HTML bodies, and of each attachment only its name, type and decoded size.
 */
public record InboundMail(String from, List<String> to, List<String> cc, String subject, OffsetDateTime date,
        String messageId, String text, String html, List<Attachment> attachments) {

    /** An attachment's metadata; its content is never kept. {@code filename} may be null. */
    public record Attachment(String filename, String contentType, long size) {
    }

    /** The event payload: {@code {from, to, cc, subject, date?, messageId?, text, html?, attachments}}. */
    public JsonObject toJson() {
        JsonObjectBuilder b = Jsons.object().add("from", from).add("to", strings(to)).add("cc", strings(cc))
                .add("subject", subject == null ? "" : subject);
        if (date != null) {
            b.add("date", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(date));
        }
        if (messageId != null) {
            b.add("messageId", messageId);
        }
        b.add("text", text == null ? "" : text);
        if (html != null) {
            b.add("html", html);
        }
        JsonArrayBuilder list = Jsons.array();
        for (Attachment a : attachments) {
            JsonObjectBuilder o = Jsons.object();
            if (a.filename() != null) {
                o.add("filename", a.filename());
            }
            list.add(o.add("contentType", a.contentType()).add("size", a.size()));
        }
        return b.add("attachments", list).build();
    }

    private static JsonArrayBuilder strings(List<String> values) {
        JsonArrayBuilder a = Jsons.array();
        values.forEach(a::add);
        return a;
    }
}
