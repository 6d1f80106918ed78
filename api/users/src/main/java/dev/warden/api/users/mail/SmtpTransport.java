package dev.warden.api.users.mail;

import jakarta.mail.Authenticator;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.PasswordAuthentication;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.Properties;

/**
 * Sends one message to the configured SMTP server with jakarta.mail (Eclipse Angus): STARTTLS required or implicit
 * TLS, with the server's certificate checked against its name, and authentication when configured. The message is
 * {@code multipart/alternative}: plain text, then HTML.
 */
final class SmtpTransport {
    private final MailConfig config;
    private final Session session;

    SmtpTransport(MailConfig config) {
        this.config = config;
        Properties p = new Properties();
        String protocol = config.tls() == MailConfig.Tls.IMPLICIT ? "smtps" : "smtp";
        String prefix = "mail." + protocol + ".";
        p.put("mail.transport.protocol", protocol);
        p.put(prefix + "host", config.host().orElseThrow());
        p.put(prefix + "port", Integer.toString(config.port()));
        p.put(prefix + "connectiontimeout", Long.toString(config.timeout().toMillis()));
        p.put(prefix + "timeout", Long.toString(config.timeout().toMillis()));
        p.put(prefix + "writetimeout", Long.toString(config.timeout().toMillis()));
        p.put(prefix + "auth", Boolean.toString(config.username().isPresent()));
        if (config.tls() == MailConfig.Tls.STARTTLS) {
            p.put(prefix + "starttls.enable", "true");
            p.put(prefix + "starttls.required", "true");
        }
        if (config.tls() != MailConfig.Tls.NONE) {
            p.put(prefix + "ssl.checkserveridentity", "true");
        }
        this.session = Session.getInstance(
                p,
                config.username().isPresent()
                        ? new Authenticator() {
                            @Override
                            protected PasswordAuthentication getPasswordAuthentication() {
                                return new PasswordAuthentication(
                                        config.username().get(),
                                        config.password().orElseThrow());
                            }
                        }
                        : null);
    }

    /** Delivers {@code message}; throws when the server refuses it or cannot be reached. */
    void send(MailMessage message) throws MessagingException {
        MimeMessage mime = new MimeMessage(session);
        mime.setFrom(new InternetAddress(config.from()));
        mime.setRecipients(Message.RecipientType.TO, InternetAddress.parse(message.to(), true));
        mime.setSubject(message.subject(), StandardCharsets.UTF_8.name());
        mime.setSentDate(new Date());
        MimeBodyPart text = new MimeBodyPart();
        text.setText(message.text(), StandardCharsets.UTF_8.name(), "plain");
        MimeBodyPart html = new MimeBodyPart();
        html.setText(message.html(), StandardCharsets.UTF_8.name(), "html");
        MimeMultipart alternative = new MimeMultipart("alternative");
        alternative.addBodyPart(text);
        alternative.addBodyPart(html);
        mime.setContent(alternative);
        Transport.send(mime);
    }
}
