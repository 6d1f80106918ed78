package dev.warden.api.users;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.api.users.mail.MailMessage;
import dev.warden.api.users.mail.MailOutbox;
import dev.warden.api.users.mail.MailTemplates;
import dev.warden.authorizer.domain.UserId;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.DatabaseException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A user's e-mail address and what it is for: setting it (verified by a link before any e-mail method uses it),
 * and resetting a forgotten password through it. Links carry single-use tokens kept as SHA-256 only; their mail is
 * queued in the same transaction ({@link MailOutbox}), so a link is never lost. A reset request answers the same
 * whether or not an address matched. Thread-safe.
 */
public final class EmailAccounts {
    /** How long a verification link works. */
    public static final Duration VERIFY_TTL = Duration.ofHours(24);
    /** How long a password-reset link works. */
    public static final Duration RESET_TTL = Duration.ofMinutes(30);

    /** How long a sign-in link works. */
    public static final Duration LINK_TTL = Duration.ofMinutes(10);
    /** How long an e-mail sign-in code works, and how many wrong answers it takes. */
    public static final Duration CODE_TTL = Duration.ofMinutes(10);

    public static final int CODE_ATTEMPTS = 5;

    static final String VERIFY = "verify-email";
    static final String RESET = "reset-password";
    static final String LINK = "sign-in-link";
    static final String CODE = "sign-in-code";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Ends what a reset must end outside this module: every OAuth grant of the user. */
    @FunctionalInterface
    public interface GrantRevocation {
        void revokeAllOf(UserId user, Instant at);
    }

    private final Database db;
    private final MailOutbox mail;
    private final MailTemplates templates;
    private final Supplier<String> publicOrigin;
    private final PasswordHasher hasher;
    private final UsersConfig config;
    private final GrantRevocation grants;
    private final EventOutbox outbox;
    private final InstantSource clock;
    private final UserService users;

    public EmailAccounts(
            UserService users,
            Database db,
            MailOutbox mail,
            Supplier<String> publicOrigin,
            PasswordHasher hasher,
            UsersConfig config,
            GrantRevocation grants,
            EventOutbox outbox,
            InstantSource clock) {
        this.users = users;
        this.db = db;
        this.mail = mail;
        this.templates = new MailTemplates();
        this.publicOrigin = publicOrigin;
        this.hasher = hasher;
        this.config = config;
        this.grants = grants;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** A user's address and whether it is verified. */
    public record Address(Optional<String> email, boolean verified) {}

    /** The caller's address. */
    public Address address(Principal caller) {
        Principal.User user = AccessPolicy.requireSession(caller);
        return db.withConnection(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("SELECT email, email_verified_at FROM users WHERE id = ?")) {
                ps.setString(1, user.id().value());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? new Address(Optional.ofNullable(rs.getString(1)), rs.getTimestamp(2) != null)
                            : new Address(Optional.empty(), false);
                }
            }
        });
    }

    /**
     * Sets the caller's address, unverified, and mails it a verification link.
     *
     * @throws InvalidInputException when {@code email} is not an address
     * @throws ConflictException {@code email_taken} when another account has it
     */
    public void changeEmail(Principal caller, String email) {
        Principal.User user = AccessPolicy.requireSession(caller);
        if (!UserService.isEmail(email)) {
            throw InvalidInputException.field("email", "must be an e-mail address");
        }
        mail.requireAvailable();
        Instant now = now();
        try {
            db.inTransaction(conn -> {
                String username;
                try (PreparedStatement ps = conn.prepareStatement("UPDATE users SET email = ?, email_key = ?, "
                        + "email_verified_at = NULL, updated_at = ? WHERE id = ? RETURNING username")) {
                    ps.setString(1, email);
                    ps.setString(2, email.toLowerCase(Locale.ROOT));
                    ps.setTimestamp(3, Timestamp.from(now));
                    ps.setString(4, user.id().value());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        username = rs.getString(1);
                    }
                }
                String token = issue(conn, user.id(), VERIFY, email, now, VERIFY_TTL);
                mail.enqueue(
                        conn,
                        templates.render(
                                "verify-email",
                                email,
                                "Confirm your e-mail address",
                                params(username, "/auth/email/verify?token=", token, "24 hours")));
                return null;
            });
        } catch (DatabaseException e) {
            throw JdbcUserRepository.taken(e).map(UserService::taken).orElseThrow(() -> e);
        }
        mail.wake();
    }

    /**
     * Verifies the address a link was sent to.
     *
     * @throws InvalidInputException {@code email_verification_invalid} for an unknown, used or expired link, or
     *     one for an address the account no longer has
     */
    public void verifyEmail(String token) {
        Instant now = now();
        boolean verified = db.inTransaction(conn -> {
            Optional<Token> found = use(conn, token, VERIFY, now);
            if (found.isEmpty() || !found.get().live(now)) {
                return false;
            }
            try (PreparedStatement ps =
                    conn.prepareStatement("UPDATE users SET email_verified_at = ? WHERE id = ? AND email_key = ?")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, found.get().user().value());
                ps.setString(3, found.get().email().toLowerCase(Locale.ROOT));
                return ps.executeUpdate() == 1;
            }
        });
        if (!verified) {
            throw new InvalidInputException(
                    ErrorCode.EMAIL_VERIFICATION_INVALID,
                    "this link is not valid: it was used, has expired, or the " + "address changed since",
                    List.of());
        }
    }

    /**
     * Mails a reset link to the account whose verified address is {@code email}, if there is one. Answers the same
     * either way; 503 (for every address alike) while mail cannot be sent.
     */
    public void requestPasswordReset(String email) {
        mailToVerified(email, RESET);
    }

    /**
     * Sets a new password with a reset link's token. Ends every session of the user (an {@code auth.signout} each,
     * from {@code ip}) and every OAuth grant of theirs, and releases a lockout.
     *
     * @throws InvalidInputException {@code password_reset_invalid} (unknown or used), {@code password_reset_expired},
     *     or naming {@code newPassword} when it breaks the password policy
     */
    public void completePasswordReset(String token, String newPassword, String ip) {
        Instant now = now();
        UserService.passwordProblem(config, newPassword).ifPresent(p -> {
            throw InvalidInputException.field("newPassword", p);
        });
        String hash = hasher.hash(newPassword);
        UserId user = db.inTransaction(conn -> {
            Token found = use(conn, token, RESET, now)
                    .orElseThrow(() -> new InvalidInputException(
                            ErrorCode.PASSWORD_RESET_INVALID, "this reset link is not valid or was used", List.of()));
            if (!found.live(now)) {
                throw new InvalidInputException(
                        ErrorCode.PASSWORD_RESET_EXPIRED, "this reset link has expired; ask for a new one", List.of());
            }
            JdbcUserRepository.resetPassword(conn, found.user(), hash, now, ip);
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE email_tokens SET used_at = ? " + "WHERE user_id = ? AND purpose = ? AND used_at IS NULL")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, found.user().value());
                ps.setString(3, RESET);
                ps.executeUpdate();
            }
            EventOutbox.appendAudit(
                    conn, AccountAudit.entry("password.reset", found.user(), "password", "password", now));
            EventOutbox.append(conn, AuthEvents.passwordReset(found.user(), ip, now));
            return found.user();
        });
        outbox.flush();
        grants.revokeAllOf(user, now);
    }

    /**
     * Mails a sign-in link to the account whose verified address is {@code email}, if any; the same answer either
     * way, and 503 for every address while mail cannot be sent.
     */
    public void sendSignInLink(String email) {
        mailToVerified(email, LINK);
    }

    /**
     * Signs in with a sign-in link's token: a session whose {@code amr} is {@code otp}, or {@code totp_required}.
     *
     * @throws UnauthenticatedException {@code sign_in_link_invalid} for an unknown, used or expired link
     */
    public UserService.SignedIn signInWithLink(String token, Origin origin) {
        Instant now = now();
        Optional<Token> found = db.inTransaction(conn -> use(conn, token, LINK, now));
        if (found.isEmpty() || !found.get().live(now)) {
            throw new UnauthenticatedException(
                    ErrorCode.SIGN_IN_LINK_INVALID, "this sign-in link is not valid: it was used or has expired");
        }
        return users.firstFactorPassed(found.get().user(), "otp", "email-link", origin);
    }

    /** Mails a 6-digit sign-in code to the account whose verified address is {@code email}, as the link is. */
    public void sendSignInCode(String email) {
        mailToVerified(email, CODE);
    }

    /**
     * Signs in with the newest code mailed to {@code email}: good once, for {@link #CODE_TTL} and
     * {@link #CODE_ATTEMPTS} answers; a wrong answer counts against the account's lockout.
     *
     * @throws UnauthenticatedException {@code email_code_invalid}, the same for an unknown address
     */
    public UserService.SignedIn signInWithCode(String email, String code, Origin origin) {
        Instant now = now();
        record Pending(byte[] hash, UserId user, Instant createdAt) {}
        Optional<Pending> pending = db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT t.token_hash, t.user_id, t.created_at "
                    + "FROM email_tokens t JOIN users u ON u.id = t.user_id "
                    + "WHERE u.email_key = ? AND u.email_verified_at IS NOT NULL AND t.purpose = ? "
                    + "AND t.used_at IS NULL AND t.expires_at > ? AND t.attempts < ? "
                    + "ORDER BY t.created_at DESC LIMIT 1")) {
                ps.setString(1, email.toLowerCase(Locale.ROOT));
                ps.setString(2, CODE);
                ps.setTimestamp(3, Timestamp.from(now));
                ps.setInt(4, CODE_ATTEMPTS);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(new Pending(
                                    rs.getBytes(1),
                                    UserId.of(rs.getString(2)),
                                    rs.getTimestamp(3).toInstant()))
                            : Optional.empty();
                }
            }
        });
        UnauthenticatedException invalid = new UnauthenticatedException(
                ErrorCode.EMAIL_CODE_INVALID, "the code is wrong, was used, or has expired; ask for a new one");
        if (pending.isEmpty()) {
            throw invalid;
        }
        Pending p = pending.get();
        boolean right =
                code.matches("[0-9]{6}") && MessageDigest.isEqual(p.hash(), codeHash(p.user(), p.createdAt(), code));
        boolean used = right
                && db.withConnection(conn -> {
                    try (PreparedStatement ps = conn.prepareStatement(
                            "UPDATE email_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL")) {
                        ps.setTimestamp(1, Timestamp.from(now));
                        ps.setBytes(2, p.hash());
                        return ps.executeUpdate() == 1;
                    }
                });
        if (!used) {
            db.withConnection(conn -> {
                try (PreparedStatement ps =
                        conn.prepareStatement("UPDATE email_tokens SET attempts = attempts + 1 WHERE token_hash = ?")) {
                    ps.setBytes(1, p.hash());
                    return ps.executeUpdate();
                }
            });
            users.emailCodeFailed(p.user(), origin);
            throw invalid;
        }
        return users.firstFactorPassed(p.user(), "otp", "email-code", origin);
    }

    /** Makes the message for a verified account's address, in the transaction that stores its token. */
    @FunctionalInterface
    private interface ToVerified {
        MailMessage message(Connection conn, UserId user, String username, String address, Instant now)
                throws SQLException;
    }

    private void mailToVerified(String email, String kind) {
        mail.requireAvailable();
        if (!UserService.isEmail(email)) {
            return;
        }
        mail.enqueueIntent(kind, email);
    }

    /**
     * The message of a queued intent ({@link MailOutbox.Intents}): for the account whose verified address is
     * {@code address}, a fresh token or code and its mail; empty when there is none.
     */
    public Optional<MailMessage> resolveIntent(String kind, String address, Instant at) {
        Instant now = at.truncatedTo(ChronoUnit.MILLIS);
        ToVerified make = switch (kind) {
            case RESET ->
                (conn, user, username, to, t) -> templates.render(
                        "reset-password",
                        to,
                        "Reset your Warden password",
                        params(
                                username,
                                "/auth/password-reset?token=",
                                issue(conn, user, RESET, to, t, RESET_TTL),
                                "30 minutes"));
            case LINK ->
                (conn, user, username, to, t) -> templates.render(
                        "sign-in-link",
                        to,
                        "Your Warden sign-in link",
                        params(
                                username,
                                "/auth/magic-link?token=",
                                issue(conn, user, LINK, to, t, LINK_TTL),
                                "10 minutes"));
            case CODE -> this::signInCode;
            default -> null;
        };
        if (make == null) {
            return Optional.empty();
        }
        return db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT id, username, email FROM users "
                    + "WHERE email_key = ? AND email_verified_at IS NOT NULL")) {
                ps.setString(1, address.toLowerCase(Locale.ROOT));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(make.message(
                                    conn, UserId.of(rs.getString(1)), rs.getString(2), rs.getString(3), now))
                            : Optional.empty();
                }
            }
        });
    }

    private MailMessage signInCode(Connection conn, UserId user, String username, String address, Instant now)
            throws SQLException {
        String code = String.format("%06d", RANDOM.nextInt(1_000_000));
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO email_tokens "
                + "(token_hash, user_id, purpose, email, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setBytes(1, codeHash(user, now, code));
            ps.setString(2, user.value());
            ps.setString(3, CODE);
            ps.setString(4, address);
            ps.setTimestamp(5, Timestamp.from(now));
            ps.setTimestamp(6, Timestamp.from(now.plus(CODE_TTL)));
            ps.executeUpdate();
        }
        return templates.render(
                "sign-in-code",
                address,
                "Your Warden sign-in code",
                Map.of("username", username, "code", code, "expiresIn", "10 minutes"));
    }

    private static byte[] codeHash(UserId user, Instant createdAt, String code) {
        return Tokens.hash(CODE + ":" + user.value() + ":" + createdAt.toEpochMilli() + ":" + code);
    }

    private record Token(UserId user, String email, Instant expiresAt) {
        boolean live(Instant now) {
            return now.isBefore(expiresAt);
        }
    }

    /** Mints a token for {@code purpose}, keeping its hash. */
    private static String issue(Connection conn, UserId user, String purpose, String email, Instant now, Duration ttl)
            throws SQLException {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO email_tokens "
                + "(token_hash, user_id, purpose, email, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setBytes(1, hash(purpose, token));
            ps.setString(2, user.value());
            ps.setString(3, purpose);
            ps.setString(4, email);
            ps.setTimestamp(5, Timestamp.from(now));
            ps.setTimestamp(6, Timestamp.from(now.plus(ttl)));
            ps.executeUpdate();
        }
        return token;
    }

    /** Marks an unused token of {@code purpose} used and answers it (expired or not); empty when unknown or used. */
    private static Optional<Token> use(Connection conn, String token, String purpose, Instant now) throws SQLException {
        if (token.isEmpty() || token.length() > 100) {
            return Optional.empty();
        }
        try (PreparedStatement ps = conn.prepareStatement("UPDATE email_tokens SET used_at = ? "
                + "WHERE token_hash = ? AND purpose = ? AND used_at IS NULL RETURNING user_id, email, expires_at")) {
            ps.setTimestamp(1, Timestamp.from(now));
            ps.setBytes(2, hash(purpose, token));
            ps.setString(3, purpose);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Token(
                                UserId.of(rs.getString(1)),
                                rs.getString(2),
                                rs.getTimestamp(3).toInstant()))
                        : Optional.empty();
            }
        }
    }

    private static byte[] hash(String purpose, String token) {
        return Tokens.hash(purpose + ":" + token);
    }

    /**
     * Mails the user {@code user} at their verified address, if they have one, queued in the caller's transaction
     * (so the message is sent if and only if what it announces commits): {@code mail/<template>} with
     * {@code params}, plus {@code username} and {@code origin} (Warden's public origin). Nothing when the user has no
     * verified address.
     */
    public void mailVerified(Connection conn, String user, String template, String subject, Map<String, Object> params)
            throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(
                "SELECT username, email FROM users WHERE id = ? AND email_verified_at IS NOT NULL")) {
            ps.setString(1, user);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return;
                }
                Map<String, Object> all = new java.util.HashMap<>(params);
                all.put("username", rs.getString("username"));
                all.put("origin", publicOrigin.get());
                mail.enqueue(conn, templates.render(template, rs.getString("email"), subject, all));
            }
        }
    }

    private Map<String, Object> params(String username, String path, String token, String expiresIn) {
        return Map.of(
                "username",
                username,
                "link",
                publicOrigin.get() + path + URLEncoder.encode(token, StandardCharsets.UTF_8),
                "expiresIn",
                expiresIn);
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
