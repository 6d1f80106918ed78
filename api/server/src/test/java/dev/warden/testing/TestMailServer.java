package dev.warden.testing;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import dev.warden.api.users.mail.MailConfig;
import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real SMTP server for a test class (GreenMail on a free port): the platform sends to it as to any server, and
 * the test reads what arrived. Start it before the platform's extension ({@code static final} field order).
 */
public final class TestMailServer implements AutoCloseable {
    private final GreenMail server;
    private final int port;

    private TestMailServer(GreenMail server, int port) {
        this.server = server;
        this.port = port;
    }

    /** A started server. */
    public static TestMailServer start() {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        GreenMail server = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        server.start();
        return new TestMailServer(server, port);
    }

    /** What the platform's {@code warden.mail} says to use this server. */
    public MailConfig config() {
        return MailConfig.plain("127.0.0.1", port, "warden@test.example");
    }

    /** Every message received so far, oldest first. */
    public List<MimeMessage> received() {
        return Arrays.asList(server.getReceivedMessages());
    }

    /** The messages to {@code to}. */
    public List<MimeMessage> to(String to) {
        return received().stream()
                .filter(m -> {
                    try {
                        return Arrays.stream(m.getAllRecipients())
                                .anyMatch(a -> a.toString().equalsIgnoreCase(to));
                    } catch (Exception e) {
                        return false;
                    }
                })
                .toList();
    }

    /** Waits for the {@code n}-th message to {@code to} (1-based), at most {@code timeout}. */
    public MimeMessage await(String to, int n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            List<MimeMessage> messages = to(to);
            if (messages.size() >= n) {
                return messages.get(n - 1);
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no message " + n + " to " + to + " within " + timeout);
    }

    /** The {@code text/plain} and {@code text/html} parts of {@code message}. */
    public static Parts parts(MimeMessage message) throws Exception {
        Multipart multipart = (Multipart) message.getContent();
        String text = null;
        String html = null;
        for (int i = 0; i < multipart.getCount(); i++) {
            BodyPart part = multipart.getBodyPart(i);
            if (part.isMimeType("text/plain")) {
                text = (String) part.getContent();
            } else if (part.isMimeType("text/html")) {
                html = (String) part.getContent();
            }
        }
        return new Parts(text, html);
    }

    /** A message's two renderings. */
    public record Parts(String text, String html) {
        /** The value of query parameter {@code token} of the first link in the text. */
        public Optional<String> token() {
            Matcher m = Pattern.compile("[?&]token=([A-Za-z0-9_%-]+)").matcher(text);
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
