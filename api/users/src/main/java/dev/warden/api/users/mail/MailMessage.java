package dev.warden.api.users.mail;

/** One message: a recipient, a subject, and the same content as plain text and as HTML. */
public record MailMessage(String to, String subject, String text, String html) {}
