package dev.warden.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * {@code warden dev}'s mail server prints every message it receives to the console, each once, as it arrives (its
 * printer sleeps until a message comes, up to a minute at a time).
 */
class DevMailServerIT {

    @Test
    void printsEachMessageOnceAsItArrives() throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);
                DevMailServer server = DevMailServer.start(out)) {
            send(server, "ada@example.test", "First", "the link is https://warden.test/verify?token=1");
            String first = awaitPrinted(console, "--- mail to ada@example.test: First");
            assertThat(first).contains("the link is https://warden.test/verify?token=1");

            send(server, "bob@example.test", "Second", "your code is 123456");
            String both = awaitPrinted(console, "--- mail to bob@example.test: Second");
            assertThat(both).contains("your code is 123456");
            assertThat(both.split("--- mail to ada@example.test", -1))
                    .as("the first message is printed once")
                    .hasSize(2);
        }
    }

    private static void send(DevMailServer server, String to, String subject, String text) throws Exception {
        Properties props = new Properties();
        props.put("mail.smtp.host", server.host());
        props.put("mail.smtp.port", String.valueOf(server.port()));
        MimeMessage message = new MimeMessage(Session.getInstance(props));
        message.setFrom(new InternetAddress("warden@dev.test"));
        message.setRecipient(Message.RecipientType.TO, new InternetAddress(to));
        message.setSubject(subject);
        message.setText(text);
        Transport.send(message);
    }

    /** The console once it holds {@code line}; well before the printer's one-minute wait would end. */
    private static String awaitPrinted(ByteArrayOutputStream console, String line) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String printed = console.toString(StandardCharsets.UTF_8);
        while (!printed.contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            printed = console.toString(StandardCharsets.UTF_8);
        }
        assertThat(printed).contains(line);
        return printed;
    }
}
