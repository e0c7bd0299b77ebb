package dev.triggeroutbox.email.control;

import dev.triggeroutbox.rest.control.JsonBody;
import jakarta.json.JsonValue;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads the JSON form of an inbound mail, for gateways that parse mail themselves:
 * {@code {from, to[], cc[]?, subject?, text?, html?, date?, messageId?, attachments[]?: {filename?,
 * contentType, size}}}. Addresses are checked and written the way {@link MimeMail} writes them, so
 * both forms make the same event.
 */
public final class JsonMail {

    static final Set<String> FIELDS = Set.of("from", "to", "cc", "subject", "text", "html", "date", "messageId",
            "attachments");
    static final Set<String> ATTACHMENT_FIELDS = Set.of("filename", "contentType", "size");

    private JsonMail() {
    }

    /** Reads the body; all its errors are thrown together as one 400 problem. */
    public static InboundMail read(JsonValue body) {
        JsonBody b = JsonBody.of(body, FIELDS);
        String from = address(b, "from", b.string("from", true));
        List<String> to = addresses(b, "to", b.strings("to", true));
        List<String> cc = addresses(b, "cc", b.strings("cc", false));
        String subject = b.string("subject", false);
        String text = b.string("text", false);
        String html = b.string("html", false);
        OffsetDateTime date = b.time("date", false);
        String messageId = b.string("messageId", false);
        List<InboundMail.Attachment> attachments = new ArrayList<>();
        List<JsonBody> items = b.objects("attachments", false, ATTACHMENT_FIELDS);
        for (JsonBody a : items == null ? List.<JsonBody>of() : items) {
            String filename = a.string("filename", false);
            String contentType = a.string("contentType", true);
            Integer size = a.integer("size", true, 0, Integer.MAX_VALUE);
            if (contentType != null && !contentType.matches("[\\w.+-]+/[\\w.+-]+")) {
                a.error("contentType", "must be a media type, e.g. application/pdf");
            }
            if (contentType != null && size != null) {
                attachments.add(
                        new InboundMail.Attachment(filename, contentType.toLowerCase(java.util.Locale.ROOT), size));
            }
        }
        b.validate();
        return new InboundMail(from, to, cc == null ? List.of() : cc, subject, date, messageId, text, html,
                attachments);
    }

    private static List<String> addresses(JsonBody b, String field, List<String> values) {
        if (values == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            out.add(address(b, field + "[" + i + "]", values.get(i)));
        }
        return out;
    }

    private static String address(JsonBody b, String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            return new InternetAddress(value, true).toUnicodeString();
        } catch (AddressException e) {
            b.error(field, "must be an email address, e.g. Alice <alice@example.com>");
            return null;
        }
    }
}
