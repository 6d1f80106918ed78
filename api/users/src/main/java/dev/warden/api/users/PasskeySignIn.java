package dev.warden.api.users;

import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.users.passkeys.PasskeyService;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Passwordless sign-in with a passkey, for the REST API ({@code POST /auth/passkeys/sign-in}) and the login page
 * alike: the ceremony's answer is verified, and a verified passkey is a whole sign-in (a session, with no password
 * and no further step). A refusal is an {@code auth.failed} event with reason {@code webauthn_failed}.
 */
public final class PasskeySignIn {
    private final PasskeyService passkeys;
    private final UserService users;
    private final InstantSource clock;

    public PasskeySignIn(PasskeyService passkeys, UserService users, InstantSource clock) {
        this.passkeys = passkeys;
        this.users = users;
        this.clock = clock;
    }

    /** A new sign-in ceremony. */
    public PasskeyService.Options options() {
        return passkeys.signInOptions(now());
    }

    /**
     * Signs in with the answer to {@code ceremony} ({@code PublicKeyCredential.toJSON()} of
     * {@code navigator.credentials.get}).
     *
     * @throws InvalidInputException {@code webauthn_failed} naming {@code credential}, with the reason
     */
    public UserService.SignedIn signIn(String ceremony, String credentialJson, Origin origin) {
        return switch (passkeys.authenticate(ceremony, credentialJson, now())) {
            case PasskeyService.Verified verified -> users.passkeyPassed(verified.user(), verified.amr(), origin);
            case PasskeyService.Refused refused -> {
                users.passkeyRefused(refused.owner(), origin);
                throw new InvalidInputException(
                        ErrorCode.WEBAUTHN_FAILED,
                        "credential: " + refused.reason(),
                        List.of(new FieldError("credential", refused.reason())));
            }
        };
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
