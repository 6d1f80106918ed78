package dev.warden.api.users.totp;

import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.authorizer.domain.UserId;
import dev.warden.runtime.db.SecretCipher;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * TOTP as a second factor of a user (RFC 6238): enrolment that completes only with a first valid code, the ten
 * recovery codes it hands out once, checking a code or a recovery code (each good once), and removal. The secret
 * is sealed with the key-encryption key, bound to the user id. Enrolment and removal are administrative actions in
 * the audit log ({@code admin.account.totp.enrolled}, {@code admin.account.totp.removed}); no secret or code is
 * ever in an event or a log. Thread-safe.
 */
public final class TotpService {
    /** The issuer label authenticator apps show beside the account. */
    static final String ISSUER = "Warden";

    /** How long a sign-in challenge may be answered. */
    public static final Duration CHALLENGE_TTL = Duration.ofMinutes(5);
    /** Answers a challenge takes before it is spent. */
    public static final int CHALLENGE_ATTEMPTS = 5;

    private final TotpRepository repository;
    private final SecretCipher cipher;

    public TotpService(TotpRepository repository, SecretCipher cipher) {
        this.repository = repository;
        this.cipher = cipher;
    }

    /** What an authenticator app needs: the secret (base32), the {@code otpauth://} URI, and the URI as a QR code. */
    public record Enrolment(String secret, String otpauthUri, String qrSvg) {}

    /** A code or a recovery code, as the user typed it; exactly one is present. */
    public record Answer(Optional<String> code, Optional<String> recoveryCode) {}

    /** True when {@code user} has a confirmed TOTP: a password alone no longer signs them in. */
    public boolean enrolled(UserId user) {
        return repository.find(user).map(TotpRepository.Enrolment::confirmed).orElse(false);
    }

    /** Recovery codes {@code user} has not used. */
    public int recoveryCodesLeft(UserId user) {
        return repository.recoveryCodesLeft(user);
    }

    /**
     * Starts an enrolment (a new secret replaces an unconfirmed one).
     *
     * @throws ConflictException {@code already_enrolled} when a confirmed TOTP exists
     */
    public Enrolment enrol(UserId user, String username, Instant now) {
        byte[] secret = Totp.newSecret();
        String base32 = Base32.encode(secret);
        if (!repository.startEnrolment(user, cipher.seal(user.value(), base32), now)) {
            throw alreadyEnrolled();
        }
        String label = URLEncoder.encode(ISSUER + ":" + username, StandardCharsets.UTF_8)
                .replace("+", "%20");
        String uri = "otpauth://totp/" + label + "?secret=" + base32 + "&issuer=" + ISSUER + "&algorithm=SHA1&digits="
                + Totp.DIGITS + "&period=" + Totp.STEP_SECONDS;
        return new Enrolment(base32, uri, QrSvg.of(uri));
    }

    /**
     * Completes the enrolment with a first valid code; returns the recovery codes, shown this once.
     *
     * @throws InvalidInputException when {@code code} is not the current code
     * @throws ConflictException {@code already_enrolled} when confirmed already, {@code conflict} when no enrolment
     *     was started
     */
    public List<String> confirm(UserId user, String code, Instant now) {
        TotpRepository.Enrolment enrolment = repository
                .find(user)
                .orElseThrow(() -> new ConflictException(ErrorCode.CONFLICT, "start an enrolment first"));
        if (enrolment.confirmed()) {
            throw alreadyEnrolled();
        }
        OptionalLong step = Totp.match(secret(user, enrolment), code, now, enrolment.lastStep());
        if (step.isEmpty()) {
            throw InvalidInputException.field("code", "is not the authenticator's current code");
        }
        List<String> codes = RecoveryCodes.mint();
        List<byte[]> hashes =
                codes.stream().map(c -> RecoveryCodes.hash(c).orElseThrow()).toList();
        if (!repository.confirm(
                user,
                step.getAsLong(),
                hashes,
                now,
                AccountAudit.entry("totp.enrolled", user, "factor", "totp", now))) {
            throw alreadyEnrolled();
        }
        return codes;
    }

    /**
     * Checks {@code answer} for {@code user}'s confirmed TOTP and uses it up: a code's step can never be accepted
     * again, a recovery code never again.
     *
     * @return the RFC 8176 method it proves ({@code otp}), empty when wrong, reused or not enrolled
     */
    public Optional<String> check(UserId user, Answer answer, Instant now) {
        Optional<TotpRepository.Enrolment> enrolment =
                repository.find(user).filter(TotpRepository.Enrolment::confirmed);
        if (enrolment.isEmpty()) {
            return Optional.empty();
        }
        if (answer.code().isPresent()) {
            OptionalLong step = Totp.match(
                    secret(user, enrolment.get()),
                    answer.code().get(),
                    now,
                    enrolment.get().lastStep());
            return step.isPresent() && repository.accept(user, step.getAsLong())
                    ? Optional.of("otp")
                    : Optional.empty();
        }
        return answer.recoveryCode()
                .flatMap(RecoveryCodes::hash)
                .filter(hash -> repository.useRecoveryCode(user, hash, now))
                .map(hash -> "otp");
    }

    /**
     * Removes {@code user}'s TOTP, given a fresh second factor (a current code or a recovery code).
     *
     * @throws InvalidInputException when the answer is wrong or reused
     * @throws NotFoundException when no TOTP is enrolled
     */
    public void remove(UserId user, Answer answer, Instant now) {
        TotpRepository.Enrolment enrolment = repository
                .find(user)
                .orElseThrow(() -> new NotFoundException(ErrorCode.NOT_FOUND, "no TOTP is enrolled"));
        if (enrolment.confirmed() && check(user, answer, now).isEmpty()) {
            throw InvalidInputException.field(
                    answer.code().isPresent() ? "code" : "recoveryCode", "is not a current code or an unused one");
        }
        repository.remove(user, AccountAudit.entry("totp.removed", user, "factor", "totp", now));
    }

    /**
     * A challenge for {@code user}, whose password was right: good once, for {@link #CHALLENGE_TTL}, and for
     * {@link #CHALLENGE_ATTEMPTS} answers. Only its hash is kept.
     */
    public UnauthenticatedException.SecondFactor challenge(UserId user, String firstFactor, Instant now) {
        String token = Tokens.mint(TokenKind.SIGN_IN_CHALLENGE);
        Instant expiresAt = now.plus(CHALLENGE_TTL);
        repository.createChallenge(challengeHash(token), user, firstFactor, now, expiresAt);
        return new UnauthenticatedException.SecondFactor(token, expiresAt);
    }

    /** The user of {@code challenge}, and the first factor it followed, while it may still be answered. */
    public Optional<TotpRepository.OpenChallenge> openChallenge(String challenge, Instant now) {
        if (Tokens.kindOf(challenge).filter(TokenKind.SIGN_IN_CHALLENGE::equals).isEmpty()
                || challenge.length() > 100) {
            return Optional.empty();
        }
        return repository.openChallenge(challengeHash(challenge), now, CHALLENGE_ATTEMPTS);
    }

    /** Counts a wrong answer to {@code challenge}. */
    public void challengeFailed(String challenge) {
        repository.challengeFailed(challengeHash(challenge));
    }

    /** Uses up {@code challenge}; false when it was used meanwhile. */
    public boolean useChallenge(String challenge, Instant now) {
        return repository.useChallenge(challengeHash(challenge), now);
    }

    private static byte[] challengeHash(String challenge) {
        return Tokens.hash(challenge);
    }

    private byte[] secret(UserId user, TotpRepository.Enrolment enrolment) {
        return Base32.decode(cipher.open(user.value(), enrolment.storedSecret()));
    }

    private static ConflictException alreadyEnrolled() {
        return new ConflictException(ErrorCode.ALREADY_ENROLLED, "TOTP is already enrolled; remove it first");
    }
}
