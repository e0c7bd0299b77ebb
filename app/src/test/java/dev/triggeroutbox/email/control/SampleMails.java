package dev.triggeroutbox.email.control;

/** Inbound mails the unit and integration tests share. */
public final class SampleMails {

    /** A small PDF, base64 as in a mail; 54 bytes decoded. */
    public static final String PDF_BASE64 = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK";
    public static final int PDF_SIZE = 54;

    /** A multipart/mixed mail: text and HTML alternatives, a PDF attachment (base64), an encoded subject. */
    public static final String MULTIPART = String.join("\r\n",
            "From: =?UTF-8?Q?J=C3=BCrgen?= <juergen@example.com>",
            "To: Orders <orders@shop.example>, support@shop.example",
            "Cc: boss@example.com",
            "Subject: =?UTF-8?B?QmVzdGVsbHVuZyDDvA==?=",
            "Date: Tue, 3 Feb 2026 10:15:30 +0100",
            "Message-ID: <order-42@example.com>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/mixed; boundary=\"outer\"",
            "",
            "--outer",
            "Content-Type: multipart/alternative; boundary=\"inner\"",
            "",
            "--inner",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            "Gr=C3=BC=C3=9Fe, order 42",
            "--inner",
            "Content-Type: text/html; charset=UTF-8",
            "",
            "<p>order 42</p>",
            "--inner--",
            "--outer",
            "Content-Type: application/pdf; name=\"invoice.pdf\"",
            "Content-Disposition: attachment; filename=\"invoice.pdf\"",
            "Content-Transfer-Encoding: base64",
            "",
            PDF_BASE64,
            "--outer--",
            "");

    private SampleMails() {
    }
}
