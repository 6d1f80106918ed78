package dev.warden.api.users;

import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.access.Scopes;
import dev.warden.api.auth.SessionResolver;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.AccountLockedException;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.errors.WardenException;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.api.users.totp.TotpRepository;
import dev.warden.api.users.totp.TotpService;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.CleanText;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The username plugin (SPEC Username plugin, Authentication 3) as library operations: sign-up, sign-in,
 * sign-out, change of username, and resolution of session tokens for the authenticator.
 *
 * <p>Sign-in answers every bad username/password pair the same way, 401 {@code INVALID_CREDENTIALS}, in the
 * same time: an unknown username is verified against a dummy Argon2id hash, a locked account is verified
 * against its own hash and refused whatever the outcome, and each failure writes one outbox event either
 * way. Every change commits with its events and is published before the method returns (or when Kafka is
 * back). Thread-safe.
 */
public final class UserService implements SessionResolver {
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]{1,64}@[^@\\s]{1,189}");

    /** True when {@code text} has the shape of an e-mail address (what sign-up and the e-mail routes accept). */
    static boolean isEmail(String text) {
        return EMAIL.matcher(text).matches();
    }

    private final UserRepository repository;
    private final UsersConfig config;
    private final UsernamePolicy usernames;
    private final PasswordHasher hasher;
    private final EventOutbox outbox;
    private final InstantSource clock;
    private final Optional<TotpService> totp;

    public UserService(
            UserRepository repository,
            UsersConfig config,
            PasswordHasher hasher,
            EventOutbox outbox,
            InstantSource clock) {
        this(repository, config, hasher, outbox, clock, Optional.empty());
    }

    /** A service whose users may enrol TOTP as a second factor. */
    public UserService(
            UserRepository repository,
            UsersConfig config,
            PasswordHasher hasher,
            EventOutbox outbox,
            InstantSource clock,
            Optional<TotpService> totp) {
        this.totp = totp;
        this.repository = repository;
        this.config = config;
        this.usernames = new UsernamePolicy(config.username());
        this.hasher = hasher;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** What sign-up asks for. */
    public record SignUp(String username, String password, Optional<String> email, Optional<String> displayName) {}

    /** A user with a fresh session and its token, shown once. */
    public record SignedIn(User user, Session session, String token) {}

    /** A user and the session they called with. */
    public record CurrentSession(User user, Session session) {}

    /**
     * Registers a user and signs them in.
     *
     * @throws InvalidInputException naming every bad field, 409 {@code username_taken} / {@code email_taken},
     *                      403 {@code signup_closed}
     */
    public SignedIn signUp(SignUp request, Origin origin) {
        if (!config.signUpEnabled()) {
            throw new ForbiddenException(ErrorCode.SIGNUP_CLOSED, "sign-up is closed on this deployment");
        }
        return register(
                request,
                origin,
                (record, session, tokenHash, events) -> repository.create(record, session, tokenHash, origin, events));
    }

    /** Stores a new user with their first session and its events, in one transaction. */
    @FunctionalInterface
    interface NewUserStore {
        void store(UserRepository.NewUser user, Session session, byte[] tokenHash, List<StreamEvent.Draft> events);
    }

    /**
     * Registers a user after sign-up's checks (username and password policy, e-mail shape), storing them through
     * {@code store}, and signs them in; whether sign-up is open is the caller's question.
     *
     * @throws InvalidInputException naming every bad field; 409 {@code username_taken} / {@code email_taken}
     */
    SignedIn register(SignUp request, Origin origin, NewUserStore store) {
        List<FieldError> errors = new ArrayList<>();
        UsernamePolicy.Result name = usernames.check(request.username());
        name.problem().ifPresent(p -> errors.add(new FieldError("username", p)));
        passwordProblem(request.password())
                .or(() -> sameAsUsername(request))
                .ifPresent(p -> errors.add(new FieldError("password", p)));
        request.email()
                .filter(e -> !isEmail(e))
                .ifPresent(e -> errors.add(new FieldError("email", "must be an e-mail address")));
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        Instant now = now();
        Username username = name.username().orElseThrow();
        User user = new User(UserId.random(), username.display(), request.email(), request.displayName(), now, now);
        String token = Tokens.mint(TokenKind.SESSION);
        Session session = Session.start(Ids.mint("ses"), user.id(), now, config.session());
        UserRepository.NewUser record = new UserRepository.NewUser(
                user, username, request.email().map(e -> e.toLowerCase(Locale.ROOT)), hasher.hash(request.password()));
        try {
            store.store(
                    record,
                    session,
                    Tokens.hash(token),
                    List.of(AuthEvents.signIn(user, session, "sign-up", origin.ip(), now)));
        } catch (AlreadyTakenException e) {
            throw taken(e);
        }
        outbox.flush();
        return new SignedIn(user, session, token);
    }

    /**
     * Signs in with a username and password.
     *
     * @throws UnauthenticatedException {@code INVALID_CREDENTIALS} for any bad pair, a locked account included
     */
    public SignedIn signIn(String username, String password, Origin origin) {
        Instant now = now();
        // A username that cannot be stored cannot name an account; the password is still checked against the
        // dummy hash so that the answer takes as long as any other miss.
        Optional<Account> account =
                CleanText.isClean(username) ? repository.findAccount(usernames.keyOf(username)) : Optional.empty();
        boolean matches =
                hasher.verify(password, account.map(Account::passwordHash).orElse(hasher.dummyHash()));
        boolean locked = account.map(a -> a.lockedAt(now)).orElse(false);
        if (account.isEmpty() || !matches || locked) {
            repository.signInFailed(
                    account.filter(a -> !locked).map(a -> a.user().id()),
                    now,
                    config.lockout(),
                    List.of(AuthEvents.failed(username, origin.ip(), now)));
            outbox.flush();
            throw new UnauthenticatedException(ErrorCode.INVALID_CREDENTIALS, "the username or password is incorrect");
        }
        User user = account.get().user();
        if (totp.isPresent() && totp.get().enrolled(user.id())) {
            // The password was right, and says so: only whoever gave it sees the challenge. No session yet.
            throw UnauthenticatedException.secondFactorRequired(totp.get().challenge(user.id(), "pwd", now));
        }
        Optional<String> rehash = hasher.needsRehash(account.get().passwordHash())
                ? Optional.of(hasher.hash(password))
                : Optional.empty();
        String token = Tokens.mint(TokenKind.SESSION);
        Session session = Session.start(Ids.mint("ses"), user.id(), now, config.session());
        repository.signedIn(
                user.id(),
                rehash,
                session,
                Tokens.hash(token),
                origin,
                List.of(AuthEvents.signIn(user, session, "password", origin.ip(), now)));
        outbox.flush();
        return new SignedIn(user, session, token);
    }

    /**
     * Completes a password sign-in that answered {@code totp_required}: {@code answer} is a current TOTP code or an
     * unused recovery code for the user of {@code challenge}. The session records {@code pwd}, {@code otp} and
     * {@code mfa}. A wrong answer spends one of the challenge's attempts and counts against the account's lockout.
     *
     * @throws UnauthenticatedException {@code totp_invalid} for a wrong, reused or late answer, or an unknown, used,
     *     expired or spent challenge
     * @throws AccountLockedException {@code account_locked} (with when it ends) for a locked account: the challenge
     *     already proves the password
     */
    public SignedIn completeSignIn(String challenge, TotpService.Answer answer, Origin origin) {
        Instant now = now();
        TotpService factors = totp.orElseThrow(UserService::totpInvalid);
        TotpRepository.OpenChallenge open =
                factors.openChallenge(challenge, now).orElseThrow(UserService::totpInvalid);
        UserId userId = open.user();
        User user = repository.find(userId).orElseThrow(UserService::totpInvalid);
        // The challenge proves the first factor: a locked account may say so now, with when the lock ends.
        requireUnlocked(user, now);
        Optional<String> method = factors.check(userId, answer, now);
        if (method.isEmpty() || !factors.useChallenge(challenge, now)) {
            factors.challengeFailed(challenge);
            repository.signInFailed(
                    Optional.of(userId),
                    now,
                    config.lockout(),
                    List.of(AuthEvents.failed(user.username(), "totp_invalid", origin.ip(), now)));
            outbox.flush();
            throw totpInvalid();
        }
        String first = open.firstFactor();
        return startSession(
                user,
                first.equals(method.get()) ? List.of(first, "mfa") : List.of(first, method.get(), "mfa"),
                (first.equals("pwd") ? "password" : "email") + "+totp",
                origin,
                now);
    }

    /**
     * Signs in a user whose first factor was proven elsewhere (an e-mail link or code: {@code firstFactor}
     * {@code otp}, event method {@code method}): a session, or, when TOTP is enrolled, {@code totp_required} with
     * a challenge.
     *
     * @throws AccountLockedException while the account is locked
     */
    SignedIn firstFactorPassed(UserId userId, String firstFactor, String method, Origin origin) {
        Instant now = now();
        User user = repository
                .find(userId)
                .orElseThrow(
                        () -> new UnauthenticatedException(ErrorCode.UNAUTHORIZED, "the account no longer exists"));
        requireUnlocked(user, now);
        if (totp.isPresent() && totp.get().enrolled(userId)) {
            throw UnauthenticatedException.secondFactorRequired(totp.get().challenge(userId, firstFactor, now));
        }
        return startSession(user, List.of(firstFactor), method, origin, now);
    }

    /**
     * Signs in the user a passkey proved (first factor and, with user verification, second): a session with
     * {@code amr}, whatever factors they also have. A lock from failed passwords or codes does not stop it: a passkey
     * cannot be guessed, and it is how the owner gets in while someone guesses their password.
     *
     * @throws UnauthenticatedException {@code unauthorized} when the account is gone
     */
    SignedIn passkeyPassed(UserId userId, List<String> amr, Origin origin) {
        Instant now = now();
        User user = repository
                .find(userId)
                .orElseThrow(
                        () -> new UnauthenticatedException(ErrorCode.UNAUTHORIZED, "the account no longer exists"));
        return startSession(user, amr, "passkey", origin, now);
    }

    /**
     * Records a passkey sign-in that did not verify as {@code auth.failed} with reason {@code webauthn_failed}, under
     * the owner's username when the passkey is a known one. Not counted against the lockout: an assertion is not a
     * guess.
     */
    void passkeyRefused(Optional<UserId> owner, Origin origin) {
        Instant now = now();
        String username = owner.flatMap(repository::find).map(User::username).orElse("");
        repository.signInFailed(
                Optional.empty(),
                now,
                config.lockout(),
                List.of(AuthEvents.failed(username, "webauthn_failed", origin.ip(), now)));
        outbox.flush();
    }

    /** Counts a wrong e-mail code against {@code user}'s lockout (unless locked already). */
    void emailCodeFailed(UserId userId, Origin origin) {
        Instant now = now();
        repository.find(userId).ifPresent(user -> {
            boolean locked = locked(user, now);
            repository.signInFailed(
                    locked ? Optional.empty() : Optional.of(userId),
                    now,
                    config.lockout(),
                    List.of(AuthEvents.failed(user.username(), "email_code_invalid", origin.ip(), now)));
            outbox.flush();
        });
    }

    /** True while {@code user}'s account is locked (or is gone). */
    private boolean locked(User user, Instant now) {
        return repository
                .findAccount(usernames.keyOf(user.username()))
                .map(a -> a.lockedAt(now))
                .orElse(true);
    }

    private void requireUnlocked(User user, Instant now) {
        Optional<Instant> until = repository
                .findAccount(usernames.keyOf(user.username()))
                .flatMap(Account::lockedUntil)
                .filter(now::isBefore);
        if (until.isPresent()) {
            throw new AccountLockedException(Duration.between(now, until.get()));
        }
    }

    private SignedIn startSession(User user, List<String> amr, String method, Origin origin, Instant now) {
        String token = Tokens.mint(TokenKind.SESSION);
        Session session = Session.start(Ids.mint("ses"), user.id(), now, config.session(), amr);
        repository.signedIn(
                user.id(),
                Optional.empty(),
                session,
                Tokens.hash(token),
                origin,
                List.of(AuthEvents.signIn(user, session, method, origin.ip(), now)));
        outbox.flush();
        return new SignedIn(user, session, token);
    }

    /**
     * Changes the caller's password, given the current one or a fresh second factor (a TOTP code or a recovery code,
     * when TOTP is enrolled). Every other session of the user ends; the caller's stays. A wrong proof counts against
     * the account's lockout like a failed sign-in.
     *
     * @return the ids of the sessions ended
     * @throws InvalidInputException naming {@code currentPassword} or {@code code} / {@code recoveryCode} when the
     *     proof is wrong (or missing), {@code newPassword} when it breaks the password policy
     * @throws ForbiddenException unless the caller authenticated with a session
     */
    public List<String> changePassword(
            Principal caller,
            Optional<String> currentPassword,
            Optional<TotpService.Answer> secondFactor,
            String newPassword,
            Origin origin) {
        Principal.User principal = AccessPolicy.requireSession(caller);
        User user = current(caller).user();
        Instant now = now();
        if (currentPassword.isPresent() == secondFactor.isPresent()) {
            throw InvalidInputException.field("currentPassword", "give the current password or a second-factor code");
        }
        if (locked(user, now)) {
            // Locked (by failed sign-ins or failed changes): refused, and not counted, so the lock is not extended.
            throw InvalidInputException.field(
                    currentPassword.isPresent() ? "currentPassword" : "code", "cannot be checked while locked");
        }
        passwordProblem(newPassword)
                .or(() -> newPassword.strip().equalsIgnoreCase(user.username().strip())
                        ? Optional.of("must not be the username")
                        : Optional.empty())
                .ifPresent(p -> {
                    throw InvalidInputException.field("newPassword", p);
                });
        boolean proven = currentPassword
                .map(p -> hasher.verify(p, repository.passwordHash(user.id()).orElse(hasher.dummyHash())))
                .orElseGet(() -> totp.flatMap(t -> t.check(user.id(), secondFactor.get(), now))
                        .isPresent());
        if (!proven) {
            repository.signInFailed(
                    Optional.of(user.id()),
                    now,
                    config.lockout(),
                    List.of(AuthEvents.failed(user.username(), "password_change_refused", origin.ip(), now)));
            outbox.flush();
            throw InvalidInputException.field(
                    currentPassword.isPresent()
                            ? "currentPassword"
                            : secondFactor.get().code().isPresent() ? "code" : "recoveryCode",
                    "is not right");
        }
        List<String> ended = repository.changePassword(
                user.id(),
                hasher.hash(newPassword),
                principal.tokenId(),
                now,
                AccountAudit.entry("password.changed", user.id(), "password", "password", now),
                origin.ip());
        outbox.flush();
        return ended;
    }

    /** The caller's live sessions, the most recently used first. */
    public List<UserRepository.ListedSession> sessions(Principal caller) {
        Principal.User user = AccessPolicy.requireSession(caller);
        return repository.liveSessions(user.id(), now());
    }

    /**
     * Ends one of the caller's sessions (their own current one included).
     *
     * @throws NotFoundException {@code not_found} when it is not a live session of theirs
     */
    public void revokeSession(Principal caller, String sessionId, Origin origin) {
        Principal.User user = AccessPolicy.requireSession(caller);
        Instant now = now();
        if (!repository.revokeSessionOf(
                user.id(), sessionId, now, List.of(AuthEvents.signOut(user.id(), sessionId, origin.ip(), now)))) {
            throw new NotFoundException(ErrorCode.NOT_FOUND, "no such session of yours");
        }
        outbox.flush();
    }

    /** Ends every session of the caller but the one they call with; returns the ids ended. */
    public List<String> revokeOtherSessions(Principal caller, Origin origin) {
        Principal.User user = AccessPolicy.requireSession(caller);
        List<String> ended = repository.revokeOtherSessions(user.id(), user.tokenId(), now(), origin.ip());
        outbox.flush();
        return ended;
    }

    private static UnauthenticatedException totpInvalid() {
        return new UnauthenticatedException(
                ErrorCode.TOTP_INVALID, "the code is wrong, was used already, or the challenge has ended");
    }

    /**
     * Ends the caller's session at once.
     *
     * @throws ForbiddenException unless the caller authenticated with a session
     */
    public void signOut(Principal caller, String ip) {
        Principal.User user = AccessPolicy.requireSession(caller);
        Instant now = now();
        if (repository.revokeSession(
                user.tokenId(), now, List.of(AuthEvents.signOut(user.id(), user.tokenId(), ip, now)))) {
            outbox.flush();
        }
    }

    /**
     * Renames the caller.
     *
     * @throws WardenException 403 without a session, 400 for a bad username, 409 {@code username_taken}
     */
    public User changeUsername(Principal caller, String username) {
        Principal.User user = AccessPolicy.requireSession(caller);
        UsernamePolicy.Result name = usernames.check(username);
        if (name.problem().isPresent()) {
            throw InvalidInputException.field("username", name.problem().get());
        }
        try {
            return repository
                    .changeUsername(user.id(), name.username().orElseThrow(), now())
                    .orElseThrow(() -> new UnauthenticatedException(
                            ErrorCode.UNAUTHORIZED, "the session's user no longer exists"));
        } catch (AlreadyTakenException e) {
            throw taken(e);
        }
    }

    /**
     * The caller's user and session.
     *
     * @throws ForbiddenException unless the caller authenticated with a session
     */
    public CurrentSession current(Principal caller) {
        Principal.User user = AccessPolicy.requireSession(caller);
        Session session = repository
                .findSessionById(user.tokenId())
                .filter(s -> s.activeAt(now()))
                .orElseThrow(() -> new UnauthenticatedException(ErrorCode.UNAUTHORIZED, "the session has ended"));
        User found = repository
                .find(user.id())
                .orElseThrow(() ->
                        new UnauthenticatedException(ErrorCode.UNAUTHORIZED, "the session's user no longer exists"));
        return new CurrentSession(found, session);
    }

    /** Resolves a live session, refreshing its expiry when due (sliding expiry). */
    @Override
    public Optional<Principal.User> resolve(byte[] tokenHash) {
        Instant now = now();
        Optional<Session> session = repository.findSession(tokenHash).filter(s -> s.activeAt(now));
        session.flatMap(s -> s.refreshedAt(now, config.session())).ifPresent(repository::refreshSession);
        return session.map(s -> new Principal.User(
                s.userId(),
                s.id(),
                Principal.Credential.SESSION,
                List.of(Scopes.ALL),
                List.of(),
                s.amr(),
                Optional.of(s.createdAt())));
    }

    private Optional<String> passwordProblem(String password) {
        return passwordProblem(config, password);
    }

    /** What is wrong with {@code password} under {@code config}'s policy, if anything. */
    static Optional<String> passwordProblem(UsersConfig config, String password) {
        int length = password.codePointCount(0, password.length());
        if (password.isBlank()) {
            return Optional.of("must not be only whitespace");
        }
        if (length < config.password().minLength()) {
            return Optional.of("must be at least " + config.password().minLength() + " characters");
        }
        if (length > config.password().maxLength()) {
            return Optional.of("must be at most " + config.password().maxLength() + " characters");
        }
        return Optional.empty();
    }

    private static Optional<String> sameAsUsername(SignUp request) {
        return request.password().strip().equalsIgnoreCase(request.username().strip())
                ? Optional.of("must not be the username")
                : Optional.empty();
    }

    /** The 409 of a name or address already in use. */
    static ConflictException taken(AlreadyTakenException e) {
        ErrorCode code = e.field().equals("email") ? ErrorCode.EMAIL_TAKEN : ErrorCode.USERNAME_TAKEN;
        return new ConflictException(
                code, e.field() + " is already taken", List.of(new FieldError(e.field(), "is already taken")));
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
