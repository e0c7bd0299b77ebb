package dev.triggeroutbox.email.control;

import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.internet.ParseException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Reads a raw RFC 822 / MIME message (Jakarta Mail) into an {@link InboundMail}. Strict where
 * leniency would hide a broken message (multipart boundaries, addresses); the first plain-text and
 * the first HTML part that are not attachments are the bodies; every other leaf part is an
 * attachment, of which only the name, type and decoded size are kept.
 */
public final class MimeMail {

    private static final int MAX_DEPTH = 16;

    /**
     * A session for parsing only (never connects anywhere). The multipart parser's leniency is set by
     * system properties, which a library must not change for the whole server: the walk checks the
     * boundary parameter and the closing boundary itself.
     */
    private static final Session SESSION;

    static {
        Properties p = new Properties();
        p.setProperty("mail.mime.address.strict", "true");
        SESSION = Session.getInstance(p);
    }

    private MimeMail() {
    }

    public static InboundMail parse(byte[] raw) throws MalformedMailException {
        try {
            MimeMessage m = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
            Address[] from = addresses(m, "From");
            if (from.length == 0) {
                throw new MalformedMailException("the message has no From header: it is not an RFC 822 message");
            }
            Parts parts = new Parts();
            walk(m, parts, 0);
            return new InboundMail(unicode(from[0]), List.of(unicode(addresses(m, "To"))),
                    List.of(unicode(addresses(m, "Cc"))), m.getSubject(),
                    m.getSentDate() == null ? null : m.getSentDate().toInstant().atOffset(ZoneOffset.UTC),
                    m.getMessageID(), parts.text, parts.html, parts.attachments);
        } catch (MessagingException e) {
            throw new MalformedMailException("the message is not well-formed MIME: " + describe(e));
        } catch (IOException e) {
            throw new MalformedMailException("the message's content cannot be decoded: " + describe(e));
        }
    }

    /** What the walk found. */
    private static final class Parts {
        String text;
        String html;
        final List<InboundMail.Attachment> attachments = new ArrayList<>();
    }

    private static void walk(Part p, Parts found, int depth)
            throws MessagingException, IOException, MalformedMailException {
        if (depth > MAX_DEPTH) {
            throw new MalformedMailException("multipart nesting deeper than " + MAX_DEPTH);
        }
        if (p.isMimeType("multipart/*")) {
            if (boundary(p.getContentType()) == null) {
                throw new MalformedMailException("a multipart part has no boundary parameter");
            }
            Object content = p.getContent();
            if (!(content instanceof MimeMultipart multipart)) {
                throw new MalformedMailException("a multipart part has no parts");
            }
            if (!multipart.isComplete()) {
                throw new MalformedMailException("a multipart part ends without its closing boundary");
            }
            for (int i = 0; i < multipart.getCount(); i++) {
                walk(multipart.getBodyPart(i), found, depth + 1);
            }
            return;
        }
        boolean attachment = Part.ATTACHMENT.equalsIgnoreCase(p.getDisposition()) || p.getFileName() != null;
        if (!attachment && found.text == null && p.isMimeType("text/plain")) {
            found.text = text(p);
        } else if (!attachment && found.html == null && p.isMimeType("text/html")) {
            found.html = text(p);
        } else {
            found.attachments.add(new InboundMail.Attachment(p.getFileName(), baseType(p.getContentType()), size(p)));
        }
    }

    private static String text(Part p) throws MessagingException, IOException, MalformedMailException {
        if (p.getContent() instanceof String s) {
            return s;
        }
        throw new MalformedMailException("a " + baseType(p.getContentType()) + " part cannot be read as text");
    }

    /** The decoded size, counted while reading: the content is never held. */
    private static long size(Part p) throws MessagingException, IOException {
        long n = 0;
        byte[] buf = new byte[8192];
        try (InputStream in = p.getInputStream()) {
            for (int r; (r = in.read(buf)) >= 0;) {
                n += r;
            }
        }
        return n;
    }

    private static String boundary(String contentType) {
        try {
            return contentType == null ? null : new ContentType(contentType).getParameter("boundary");
        } catch (ParseException e) {
            return null;
        }
    }

    private static String baseType(String contentType) {
        if (contentType == null) {
            return "application/octet-stream";
        }
        try {
            return new ContentType(contentType).getBaseType().toLowerCase(Locale.ROOT);
        } catch (ParseException e) {
            return "application/octet-stream";
        }
    }

    private static Address[] addresses(MimeMessage m, String header) throws MessagingException, MalformedMailException {
        String value = m.getHeader(header, ",");
        if (value == null || value.isBlank()) {
            return new Address[0];
        }
        try {
            return InternetAddress.parseHeader(value, true);
        } catch (MessagingException e) {
            throw new MalformedMailException("the " + header + " header is not a list of addresses: " + describe(e));
        }
    }

    private static String unicode(Address a) {
        return ((InternetAddress) a).toUnicodeString();
    }

    private static String[] unicode(Address[] all) {
        String[] out = new String[all.length];
        for (int i = 0; i < all.length; i++) {
            out[i] = unicode(all[i]);
        }
        return out;
    }

    /** The parser's own words, without class names. */
    private static String describe(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? "unreadable" : message;
    }
}
