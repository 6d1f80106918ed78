package dev.warden.embedded;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;

/**
 * The SMTP server of {@code warden dev} when none is configured: GreenMail on a free loopback port. Every message it
 * receives is printed to the console (recipient, subject, text), so a developer can follow every e-mail flow (the
 * verification and reset links, the codes) with no setup. Development only: nothing leaves the machine.
 */
public final class DevMailServer implements AutoCloseable {
    /** The printer's longest wait for a message, after which it waits again (or ends, once closed). */
    private static final Duration WAIT = Duration.ofMinutes(1);

    private final GreenMail server;
    private final int port;
    private volatile boolean running = true;
    private int printed;

    private DevMailServer(GreenMail server, int port, PrintStream out) {
        this.server = server;
        this.port = port;
        Thread.ofPlatform().name("warden-dev-mail").daemon().start(() -> {
            // GreenMail counts each message down on a latch: the printer sleeps until one arrives.
            while (running) {
                if (server.waitForIncomingEmail(WAIT.toMillis(), printed + 1)) {
                    print(out);
                }
            }
        });
    }

    /** Starts the server and the printer of what it receives. */
    public static DevMailServer start(PrintStream out) {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port for the development mail server", e);
        }
        GreenMail server = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        server.start();
        return new DevMailServer(server, port, out);
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    private void print(PrintStream out) {
        MimeMessage[] received = server.getReceivedMessages();
        for (MimeMessage message : Arrays.copyOfRange(received, Math.min(printed, received.length), received.length)) {
            try {
                out.printf(
                        "%n--- mail to %s: %s%n%s%n---%n",
                        String.join(
                                ", ",
                                Arrays.stream(message.getAllRecipients())
                                        .map(Object::toString)
                                        .toList()),
                        message.getSubject(),
                        text(message).strip());
            } catch (Exception e) {
                out.println("--- mail (unreadable: " + e.getMessage() + ")");
            }
        }
        printed = received.length;
    }

    private static String text(MimeMessage message) throws Exception {
        Object content = message.getContent();
        if (content instanceof Multipart multipart) {
            for (int i = 0; i < multipart.getCount(); i++) {
                BodyPart part = multipart.getBodyPart(i);
                if (part.isMimeType("text/plain")) {
                    return (String) part.getContent();
                }
            }
        }
        return String.valueOf(content);
    }

    @Override
    public void close() {
        // GreenMail's wait does not end on an interrupt: the printer (a daemon) ends at the end of its wait.
        running = false;
        server.stop();
    }
}
