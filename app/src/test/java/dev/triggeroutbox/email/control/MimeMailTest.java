package dev.triggeroutbox.email.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class MimeMailTest {

    private static InboundMail parse(String raw) throws MalformedMailException {
        return MimeMail.parse(raw.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsAddressesSubjectDateBodiesAndAttachmentMetadata() throws Exception {
        InboundMail m = parse(SampleMails.MULTIPART);
        assertEquals("\"Jürgen\" <juergen@example.com>", m.from());
        assertEquals(List.of("Orders <orders@shop.example>", "support@shop.example"), m.to());
        assertEquals(List.of("boss@example.com"), m.cc());
        assertEquals("Bestellung ü", m.subject());
        assertEquals(OffsetDateTime.parse("2026-02-03T09:15:30Z"), m.date());
        assertEquals("<order-42@example.com>", m.messageId());
        assertEquals("Grüße, order 42", m.text().strip());
        assertEquals("<p>order 42</p>", m.html().strip());
        assertEquals(List.of(new InboundMail.Attachment("invoice.pdf", "application/pdf", SampleMails.PDF_SIZE)),
                m.attachments());
    }

    @Test
    void aPlainMailHasNoHtmlAndNoAttachments() throws Exception {
        InboundMail m = parse("From: a@example.com\r\nSubject: hi\r\n\r\nhello\r\n");
        assertEquals("hello", m.text().strip());
        assertNull(m.html());
        assertTrue(m.to().isEmpty());
        assertTrue(m.attachments().isEmpty());
        assertTrue(m.toJson().getJsonArray("to").isEmpty());
        assertEquals("hi", m.toJson().getString("subject"));
        assertTrue(!m.toJson().containsKey("html") && !m.toJson().containsKey("date"));
    }

    @Test
    void brokenMessagesAreRefusedWithAReason() {
        List<String> broken = List.of(
                "this is not a mail at all",
                "",
                "From: not an address <<>>\r\n\r\nx",
                "From: a@example.com\r\nTo: @@@\r\n\r\nx",
                // the boundary never appears
                "From: a@example.com\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\nno parts here\r\n",
                // no boundary parameter
                "From: a@example.com\r\nContent-Type: multipart/mixed\r\n\r\n--x\r\n\r\nbody\r\n--x--\r\n",
                // the closing boundary is missing
                "From: a@example.com\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nbody\r\n",
                // an unknown charset
                "From: a@example.com\r\nContent-Type: text/plain; charset=x-no-such-charset\r\n\r\nbody\r\n");
        for (String raw : broken) {
            MalformedMailException e = assertThrows(MalformedMailException.class, () -> parse(raw), raw);
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), raw);
            assertTrue(!e.getMessage().contains("Exception") && !e.getMessage().contains("jakarta."), e.getMessage());
        }
    }
}
