package dev.warden.api.users.mail;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import java.util.Map;

/**
 * The mail Warden sends, each as plain text and HTML from precompiled jte templates ({@code src/main/jte/mail} and
 * {@code src/main/jte-text/mail}): the HTML escapes every value, the text takes them as they are.
 */
public final class MailTemplates {
    private final TemplateEngine html = TemplateEngine.createPrecompiled(ContentType.Html);
    private final TemplateEngine text = TemplateEngine.createPrecompiled(ContentType.Plain);

    /** {@code mail/<name>-text.jte} and {@code mail/<name>-html.jte} with {@code params}, to {@code to}. */
    public MailMessage render(String name, String to, String subject, Map<String, Object> params) {
        StringOutput textOut = new StringOutput();
        text.render("mail/" + name + "-text.jte", params, textOut);
        StringOutput htmlOut = new StringOutput();
        html.render("mail/" + name + "-html.jte", params, htmlOut);
        return new MailMessage(to, subject, textOut.toString(), htmlOut.toString());
    }
}
