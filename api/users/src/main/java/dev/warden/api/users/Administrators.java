package dev.warden.api.users;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.AdminTokenResolver;
import dev.warden.api.auth.CredentialResolver;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.api.users.passkeys.PasskeyService;
import dev.warden.api.users.totp.TotpService;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Administrators who are people (docs/sign-in.md, "First-run setup and administrators"). On a fresh installation
 * (no administrator yet) the process mints a one-time setup token and prints it. {@code POST /auth/setup} with it
 * creates the first administrator's account and signs them in; they enrol a passkey or TOTP with that session, and
 * {@code POST /auth/setup/complete} makes them an administrator, using the token up. An administrator acts as
 * such through an administrator session ({@code wdn_ads_}, an hour), started from a session that proved a second
 * factor; it resolves to the administrator principal, and its start is in the audit log under their name.
 * Thread-safe.
 */
public final class Administrators {
    /** How long a setup token may be used. */
    public static final Duration SETUP_TOKEN_TTL = Duration.ofHours(24);
    /** How long an administrator session lasts. */
    public static final Duration ADMIN_SESSION_TTL = Duration.ofHours(1);

    private final AdministratorRepository repository;
    private final UserService users;
    private final TotpService totp;
    private final PasskeyService passkeys;
    private final InstantSource clock;

    public Administrators(
            AdministratorRepository repository,
            UserService users,
            TotpService totp,
            PasskeyService passkeys,
            InstantSource clock) {
        this.repository = repository;
        this.users = users;
        this.totp = totp;
        this.passkeys = passkeys;
        this.clock = clock;
    }

    /** An administrator session's token, shown once, and when it ends. */
    public record AdminSession(String token, Instant expiresAt) {}

    /**
     * A new setup token when the installation has no administrator and no setup is under way; only its hash is
     * kept, and it replaces any unclaimed one.
     */
    public Optional<String> issueSetupTokenIfFresh() {
        if (repository.anyAdministrator()) {
            return Optional.empty();
        }
        Instant now = now();
        String token = Tokens.mint(TokenKind.SETUP);
        return repository.issueSetupToken(Tokens.hash(token), now, now.plus(SETUP_TOKEN_TTL))
                ? Optional.of(token)
                : Optional.empty();
    }

    /**
     * Creates the account of the first administrator with the setup token and signs them in (sign-up's checks
     * apply; whether sign-up is open does not). They are not an administrator until {@link #completeSetup}.
     *
     * @throws UnauthenticatedException {@code setup_token_invalid} for a wrong, claimed, used or expired token
     */
    public UserService.SignedIn setUp(String setupToken, UserService.SignUp request, Origin origin) {
        byte[] hash = setupHash(setupToken);
        Instant now = now();
        // Nothing is stored when the token cannot be claimed: the refusal leaves register before its session exists.
        return users.register(request, origin, (record, session, tokenHash, events) -> {
            if (!repository.createClaiming(record, session, tokenHash, origin, events, hash, now)) {
                throw invalid();
            }
        });
    }

    /**
     * Makes the caller, who set up with {@code setupToken} and has since enrolled a passkey or TOTP, an
     * administrator.
     *
     * @throws ConflictException {@code conflict} while they have neither factor
     * @throws UnauthenticatedException {@code setup_token_invalid} unless the token is live and theirs
     */
    public User completeSetup(Principal caller, String setupToken) {
        Principal.User user = AccessPolicy.requireSession(caller);
        byte[] hash = setupHash(setupToken);
        if (!totp.enrolled(user.id()) && passkeys.list(user.id()).isEmpty()) {
            throw new ConflictException(
                    ErrorCode.CONFLICT,
                    "enrol a passkey (POST /auth/passkeys) or TOTP (POST /auth/totp/enrol) first: an administrator "
                            + "signs in with a second factor");
        }
        Instant now = now();
        if (!repository.completeSetup(
                user.id(), hash, now, AccountAudit.entry("administrator.granted", user.id(), "user", "setup", now))) {
            throw invalid();
        }
        return users.current(caller).user();
    }

    /**
     * Starts an administrator session for the caller: an administrator whose session proved a second factor.
     *
     * @throws ForbiddenException {@code step_up_required} without a second factor, {@code forbidden} for a user who
     *     is not an administrator
     */
    public AdminSession startAdminSession(Principal caller) {
        Principal.User user = AccessPolicy.requireSession(caller);
        if (!repository.isAdministrator(user.id())) {
            throw new ForbiddenException("administrator sessions are for administrators");
        }
        AccessPolicy.requireSecondFactor(caller, "an administrator session");
        Instant now = now();
        String token = Tokens.mint(TokenKind.ADMIN_SESSION);
        String id = Ids.mint("ads");
        Instant expiresAt = now.plus(ADMIN_SESSION_TTL);
        repository.startAdminSession(
                id,
                Tokens.hash(token),
                user.id(),
                user.tokenId(),
                now,
                expiresAt,
                AccountAudit.entry("admin-session.started", user.id(), "admin-session", id, now));
        return new AdminSession(token, expiresAt);
    }

    /** True when {@code user} is an administrator (may start an administrator session). */
    public boolean isAdministrator(UserId user) {
        return repository.isAdministrator(user);
    }

    /**
     * The administrator whose live administrator session {@code token} is (its user still an administrator, the
     * session it was started from not ended); empty for anything else.
     */
    public Optional<UserId> adminSessionUser(String token) {
        if (!token.startsWith(TokenKind.ADMIN_SESSION.prefix())) {
            return Optional.empty();
        }
        return repository.findAdminSession(Tokens.hash(token), now());
    }

    /**
     * The administrator, as the authenticator resolves {@code token}, when it is a live administrator session of
     * {@code user}'s (a browser's administrator cookie next to that user's session); empty for anything else.
     */
    public Optional<Principal> adminSessionOf(UserId user, String token) {
        return adminSessionUser(token)
                .filter(user::equals)
                .flatMap(u -> resolver().resolve(token, Tokens.hash(token)));
    }

    /** Ends the administrator session {@code token} before its hour is up (audited); nothing for anything else. */
    public void endAdminSession(String token) {
        if (!token.startsWith(TokenKind.ADMIN_SESSION.prefix())) {
            return;
        }
        Instant now = now();
        repository.endAdminSession(
                Tokens.hash(token),
                now,
                (id, user) -> AccountAudit.entry("admin-session.ended", user, "admin-session", id, now));
    }

    /** Resolves administrator sessions ({@code wdn_ads_}) to the administrator, for the authenticator's chain. */
    public CredentialResolver resolver() {
        return AdminTokenResolver.sessions(
                hash -> repository.findAdminSession(hash, now()).isPresent());
    }

    private static byte[] setupHash(String setupToken) {
        if (setupToken.length() > 100
                || Tokens.kindOf(setupToken).filter(TokenKind.SETUP::equals).isEmpty()) {
            throw invalid();
        }
        return Tokens.hash(setupToken);
    }

    private static UnauthenticatedException invalid() {
        return new UnauthenticatedException(
                ErrorCode.SETUP_TOKEN_INVALID, "the setup token is wrong, used, taken by another setup, or expired");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
