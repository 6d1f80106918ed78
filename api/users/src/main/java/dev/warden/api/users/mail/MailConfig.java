package dev.warden.api.users.mail;

import io.helidon.config.Config;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * The SMTP server Warden sends mail through (node {@code warden.mail}): sign-in links, codes, verification and
 * reset mail. No {@code host} means no mail: the e-mail routes answer 503 until one is configured.
 *
 * @param host     the SMTP server; empty disables mail
 * @param port     its port (587 for STARTTLS, 465 for implicit TLS, 25 for none)
 * @param tls      {@code starttls} (required, default), {@code implicit} or {@code none} (development only)
 * @param username the account to authenticate as, when the server asks for one
 * @param password its password
 * @param from     the sender address
 * @param timeout  the connect, read and write timeout of one delivery
 */
public record MailConfig(
        Optional<String> host,
        int port,
        Tls tls,
        Optional<String> username,
        Optional<String> password,
        String from,
        Duration timeout) {

    /** How the connection is protected. */
    public enum Tls {
        /** Plain SMTP upgraded with STARTTLS, which must succeed. */
        STARTTLS,
        /** TLS from the first byte (SMTPS). */
        IMPLICIT,
        /** No TLS: a local development server only. */
        NONE
    }

    public MailConfig {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("warden.mail.port must be 1..65535");
        }
        if (!from.contains("@")) {
            throw new IllegalArgumentException("warden.mail.from must be an e-mail address");
        }
        if (username.isPresent() != password.isPresent()) {
            throw new IllegalArgumentException("warden.mail.username and warden.mail.password go together");
        }
    }

    /** No mail server: e-mail methods are unavailable. */
    public static MailConfig none() {
        return new MailConfig(
                Optional.empty(),
                587,
                Tls.STARTTLS,
                Optional.empty(),
                Optional.empty(),
                "warden@localhost",
                Duration.ofSeconds(10));
    }

    /** A server at {@code host:port} without TLS or authentication (a development or test server). */
    public static MailConfig plain(String host, int port, String from) {
        return new MailConfig(
                Optional.of(host), port, Tls.NONE, Optional.empty(), Optional.empty(), from, Duration.ofSeconds(10));
    }

    /** True when a server is configured. */
    public boolean enabled() {
        return host.isPresent();
    }

    /** From node {@code warden.mail}. */
    public static MailConfig from(Config node) {
        MailConfig none = none();
        Optional<String> host = node.get("host").asString().asOptional().filter(h -> !h.isBlank());
        Tls tls = node.get("tls")
                .asString()
                .map(v -> Tls.valueOf(v.strip().toUpperCase(Locale.ROOT)))
                .orElse(Tls.STARTTLS);
        int port = node.get("port").asInt().orElse(tls == Tls.IMPLICIT ? 465 : tls == Tls.NONE ? 25 : 587);
        return new MailConfig(
                host,
                port,
                tls,
                node.get("username").asString().asOptional(),
                node.get("password").asString().asOptional(),
                node.get("from").asString().orElse(none.from()),
                Duration.ofMillis(
                        node.get("timeout-ms").asLong().orElse(none.timeout().toMillis())));
    }

    @Override
    public String toString() {
        return "MailConfig[host=" + host.orElse("(none)") + ", port=" + port + ", tls=" + tls + ", username="
                + username.orElse("") + ", password=" + (password.isPresent() ? "****" : "") + ", from=" + from + "]";
    }
}
