package dev.warden.api.users.passkeys;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.webauthn4j.WebAuthnManager;
import com.webauthn4j.converter.AttestedCredentialDataConverter;
import com.webauthn4j.converter.util.ObjectConverter;
import com.webauthn4j.credential.CredentialRecordImpl;
import com.webauthn4j.data.AuthenticationData;
import com.webauthn4j.data.AuthenticationParameters;
import com.webauthn4j.data.AuthenticatorTransport;
import com.webauthn4j.data.PublicKeyCredentialParameters;
import com.webauthn4j.data.PublicKeyCredentialType;
import com.webauthn4j.data.RegistrationData;
import com.webauthn4j.data.RegistrationParameters;
import com.webauthn4j.data.attestation.authenticator.AttestedCredentialData;
import com.webauthn4j.data.attestation.authenticator.AuthenticatorData;
import com.webauthn4j.data.attestation.statement.COSEAlgorithmIdentifier;
import com.webauthn4j.data.attestation.statement.NoneAttestationStatement;
import com.webauthn4j.data.client.Origin;
import com.webauthn4j.data.client.challenge.DefaultChallenge;
import com.webauthn4j.server.ServerProperty;
import com.webauthn4j.verifier.exception.BadChallengeException;
import com.webauthn4j.verifier.exception.BadOriginException;
import com.webauthn4j.verifier.exception.BadRpIdException;
import com.webauthn4j.verifier.exception.BadSignatureException;
import com.webauthn4j.verifier.exception.InconsistentClientDataTypeException;
import com.webauthn4j.verifier.exception.MaliciousCounterValueException;
import com.webauthn4j.verifier.exception.NotAllowedAlgorithmException;
import com.webauthn4j.verifier.exception.UserNotPresentException;
import com.webauthn4j.verifier.exception.VerificationException;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Passkeys (WebAuthn Level 3) of users: the registration ceremony of a signed-in user, the sign-in ceremony of
 * anyone (discoverable credentials: no username first), and listing and removing them. The attestation and assertion
 * checks are webauthn4j's: origin, relying party id, challenge, user presence, signature and the signature counter
 * (a counter that does not go forward, where the authenticator keeps one, is a cloned authenticator and refused).
 * Attestation is not asked for ({@code none}): Warden trusts the key, not the make of the authenticator. Each
 * ceremony is good once, for {@link #CEREMONY_TTL}; only its handle's hash is kept. Adding and removing a passkey
 * are administrative actions in the audit log. Thread-safe.
 */
public final class PasskeyService {
    /** How long a ceremony may be answered. */
    public static final Duration CEREMONY_TTL = Duration.ofMinutes(5);
    /** Passkeys one user may have. */
    public static final int MAX_PER_USER = 10;
    /** The longest name a passkey may have. */
    public static final int MAX_NAME = 64;

    /** ES256, EdDSA and RS256, the algorithms authenticators use, in the order Warden prefers them. */
    private static final List<PublicKeyCredentialParameters> ALGORITHMS = List.of(
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.ES256),
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.EdDSA),
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.RS256));

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private final PasskeyRepository repository;
    private final RelyingParty relyingParty;
    private final WebAuthnManager webAuthn;
    private final AttestedCredentialDataConverter credentialData;

    public PasskeyService(PasskeyRepository repository, RelyingParty relyingParty) {
        ObjectConverter converter = new ObjectConverter();
        this.repository = repository;
        this.relyingParty = relyingParty;
        // Non-strict: attestation statements are not judged, as none is asked for.
        this.webAuthn = WebAuthnManager.createNonStrictWebAuthnManager(converter);
        this.credentialData = new AttestedCredentialDataConverter(converter);
    }

    /** A ceremony's handle, to send back with the answer, and the options for {@code navigator.credentials}. */
    public record Options(String ceremony, ObjectNode publicKey) {}

    /** The outcome of a sign-in ceremony. */
    public sealed interface SignIn {}

    /** The passkey verified: whose it is, and how it signed them in as RFC 8176 {@code amr} values. */
    public record Verified(UserId user, String passkeyId, List<String> amr) implements SignIn {}

    /** The answer did not verify, for {@code reason}; {@code owner} is the passkey's user when it is a known one. */
    public record Refused(String reason, Optional<UserId> owner) implements SignIn {}

    /** {@code user}'s passkeys. */
    public List<Passkey> list(UserId user) {
        return repository.listOf(user).stream()
                .map(PasskeyRepository.Stored::passkey)
                .toList();
    }

    /**
     * Starts a registration for {@code user}: a discoverable credential (resident key required), user verification
     * preferred, their existing passkeys excluded.
     */
    public Options registrationOptions(UserId user, String username, String displayName, Instant now) {
        byte[] challenge = challenge();
        String handle = ceremony(PasskeyRepository.Kind.REGISTRATION, Optional.of(user), challenge, now);
        ObjectNode options = Json.mapper().createObjectNode();
        options.putObject("rp").put("id", relyingParty.id()).put("name", RelyingParty.NAME);
        options.putObject("user")
                .put("id", B64.encodeToString(userHandle(user)))
                .put("name", username)
                .put("displayName", displayName);
        options.put("challenge", B64.encodeToString(challenge));
        ArrayNode algorithms = options.putArray("pubKeyCredParams");
        for (PublicKeyCredentialParameters p : ALGORITHMS) {
            algorithms
                    .addObject()
                    .put("type", "public-key")
                    .put("alg", p.getAlg().getValue());
        }
        options.put("timeout", CEREMONY_TTL.toMillis());
        ArrayNode exclude = options.putArray("excludeCredentials");
        for (PasskeyRepository.Stored stored : repository.listOf(user)) {
            ObjectNode entry =
                    exclude.addObject().put("type", "public-key").put("id", B64.encodeToString(stored.credentialId()));
            ArrayNode transports = entry.putArray("transports");
            stored.passkey().transports().forEach(transports::add);
        }
        options.putObject("authenticatorSelection")
                .put("residentKey", "required")
                .put("requireResidentKey", true)
                .put("userVerification", "preferred");
        options.put("attestation", "none");
        return new Options(handle, options);
    }

    /**
     * Completes {@code user}'s registration with the browser's answer ({@code PublicKeyCredential.toJSON()}).
     *
     * @throws InvalidInputException {@code webauthn_failed} naming {@code credential} with the reason (and
     *     {@code ceremony} when it is unknown, used, expired or another user's)
     * @throws ConflictException {@code conflict} when the user has {@link #MAX_PER_USER} passkeys or the credential
     *     is registered already
     */
    public Passkey register(UserId user, String ceremony, String credentialJson, Optional<String> name, Instant now) {
        PasskeyRepository.Ceremony open = useCeremony(ceremony, PasskeyRepository.Kind.REGISTRATION, now)
                .filter(c -> c.user().equals(Optional.of(user)))
                .orElseThrow(() -> failed("ceremony", "is unknown, used or expired: ask for new options"));
        RegistrationData data;
        try {
            data = webAuthn.parseRegistrationResponseJSON(credentialJson);
        } catch (RuntimeException e) {
            throw failed("credential", "is not a WebAuthn registration response");
        }
        try {
            webAuthn.verify(
                    data, new RegistrationParameters(serverProperty(open.challenge()), ALGORITHMS, false, true));
        } catch (VerificationException e) {
            throw failed("credential", reason(e));
        }
        AuthenticatorData<?> authenticator = data.getAttestationObject().getAuthenticatorData();
        AttestedCredentialData attested = authenticator.getAttestedCredentialData();
        List<String> transports = new ArrayList<>();
        Set<AuthenticatorTransport> reported = data.getTransports() == null ? Set.of() : data.getTransports();
        reported.forEach(t -> transports.add(t.getValue()));
        Passkey passkey = new Passkey(
                Ids.mint("pk"),
                name.orElse("Passkey " + now.toString().substring(0, 10)),
                transports.stream().sorted().toList(),
                authenticator.isFlagBS(),
                now,
                Optional.empty());
        PasskeyRepository.Stored stored = new PasskeyRepository.Stored(
                passkey,
                user,
                attested.getCredentialId(),
                credentialData.convert(attested),
                authenticator.getSignCount(),
                authenticator.isFlagUV(),
                authenticator.isFlagBE());
        return switch (repository.add(
                stored, MAX_PER_USER, AccountAudit.entry("passkey.added", user, "passkey", passkey.id(), now))) {
            case ADDED -> passkey;
            case TOO_MANY ->
                throw new ConflictException(
                        ErrorCode.CONFLICT, "a user has at most " + MAX_PER_USER + " passkeys: remove one first");
            case DUPLICATE -> throw new ConflictException(ErrorCode.CONFLICT, "this passkey is registered already");
        };
    }

    /** Starts a sign-in: any discoverable passkey of Warden's, user verification preferred. */
    public Options signInOptions(Instant now) {
        byte[] challenge = challenge();
        String handle = ceremony(PasskeyRepository.Kind.AUTHENTICATION, Optional.empty(), challenge, now);
        ObjectNode options = Json.mapper().createObjectNode();
        options.put("challenge", B64.encodeToString(challenge));
        options.put("rpId", relyingParty.id());
        options.put("timeout", CEREMONY_TTL.toMillis());
        options.put("userVerification", "preferred");
        options.putArray("allowCredentials");
        return new Options(handle, options);
    }

    /**
     * Checks the browser's answer to sign-in ceremony {@code ceremony} and records the passkey's use. The ceremony
     * is spent whatever the outcome. A verified passkey signs its user in by itself: {@code hwk} for a device-bound
     * key or {@code swk} for a synced one (backup eligible), with {@code mfa} when the authenticator verified the
     * user (a PIN or a biometric beside possession).
     */
    public SignIn authenticate(String ceremony, String credentialJson, Instant now) {
        Optional<PasskeyRepository.Ceremony> open = useCeremony(ceremony, PasskeyRepository.Kind.AUTHENTICATION, now);
        if (open.isEmpty()) {
            return new Refused("the ceremony is unknown, used or expired: ask for new options", Optional.empty());
        }
        AuthenticationData data;
        try {
            data = webAuthn.parseAuthenticationResponseJSON(credentialJson);
        } catch (RuntimeException e) {
            return new Refused("the credential is not a WebAuthn authentication response", Optional.empty());
        }
        Optional<PasskeyRepository.Stored> found =
                Optional.ofNullable(data.getCredentialId()).flatMap(repository::findByCredential);
        if (found.isEmpty()) {
            return new Refused("the passkey is not registered with Warden", Optional.empty());
        }
        PasskeyRepository.Stored stored = found.get();
        if (data.getUserHandle() == null || !MessageDigest.isEqual(data.getUserHandle(), userHandle(stored.user()))) {
            return new Refused("the passkey answered for another user than its own", Optional.of(stored.user()));
        }
        CredentialRecordImpl record = new CredentialRecordImpl(
                new NoneAttestationStatement(),
                stored.uvInitialized(),
                stored.backupEligible(),
                stored.passkey().backedUp(),
                stored.signCount(),
                credentialData.convert(stored.attestedCredentialData()),
                null,
                null,
                null,
                transports(stored.passkey().transports()));
        try {
            webAuthn.verify(
                    data,
                    new AuthenticationParameters(
                            serverProperty(open.get().challenge()),
                            record,
                            List.of(stored.credentialId()),
                            false,
                            true));
        } catch (VerificationException e) {
            return new Refused(reason(e), Optional.of(stored.user()));
        }
        AuthenticatorData<?> authenticator = data.getAuthenticatorData();
        if (!repository.recordUse(
                stored.passkey().id(),
                stored.signCount(),
                authenticator.getSignCount(),
                authenticator.isFlagBS(),
                now)) {
            return new Refused(
                    "the passkey was used at the same moment by another sign-in", Optional.of(stored.user()));
        }
        String key = stored.backupEligible() ? "swk" : "hwk";
        return new Verified(
                stored.user(), stored.passkey().id(), authenticator.isFlagUV() ? List.of(key, "mfa") : List.of(key));
    }

    /**
     * Removes {@code user}'s passkey {@code id}.
     *
     * @throws NotFoundException when they have no such passkey
     */
    public void remove(UserId user, String id, Instant now) {
        if (!repository.remove(user, id, AccountAudit.entry("passkey.removed", user, "passkey", id, now))) {
            throw new NotFoundException(ErrorCode.NOT_FOUND, "no such passkey of yours");
        }
    }

    /** The WebAuthn user handle of {@code user}: their id, which names no one (WebAuthn 14.6.1). */
    static byte[] userHandle(UserId user) {
        return user.value().getBytes(StandardCharsets.UTF_8);
    }

    private String ceremony(PasskeyRepository.Kind kind, Optional<UserId> user, byte[] challenge, Instant now) {
        String handle = Tokens.mint(TokenKind.WEBAUTHN_CEREMONY);
        repository.createCeremony(Tokens.hash(handle), kind, user, challenge, now, now.plus(CEREMONY_TTL));
        return handle;
    }

    private Optional<PasskeyRepository.Ceremony> useCeremony(String handle, PasskeyRepository.Kind kind, Instant now) {
        if (handle.length() > 100
                || Tokens.kindOf(handle)
                        .filter(TokenKind.WEBAUTHN_CEREMONY::equals)
                        .isEmpty()) {
            return Optional.empty();
        }
        return repository.useCeremony(Tokens.hash(handle), kind, now);
    }

    private ServerProperty serverProperty(byte[] challenge) {
        return ServerProperty.builder()
                .origin(new Origin(relyingParty.origin()))
                .rpId(relyingParty.id())
                .challenge(new DefaultChallenge(challenge))
                .build();
    }

    private static Set<AuthenticatorTransport> transports(List<String> names) {
        Set<AuthenticatorTransport> out = new LinkedHashSet<>();
        names.forEach(n -> out.add(AuthenticatorTransport.create(n)));
        return out;
    }

    private static byte[] challenge() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    /** What a verification failure means, in words that give away nothing of the server's state. */
    static String reason(VerificationException e) {
        return switch (e) {
            case MaliciousCounterValueException c ->
                "the signature counter did not go forward: the authenticator may be a clone";
            case BadChallengeException c -> "the response signs another challenge than the ceremony's";
            case BadOriginException c -> "the response comes from another origin than Warden's";
            case BadRpIdException c -> "the response is for another relying party than Warden";
            case BadSignatureException c -> "the signature does not verify";
            case UserNotPresentException c -> "the authenticator did not test the user's presence";
            case InconsistentClientDataTypeException c -> "the response is of another ceremony type";
            case NotAllowedAlgorithmException c -> "the key's algorithm is not one Warden accepts";
            default -> "the response does not verify";
        };
    }

    private static InvalidInputException failed(String field, String reason) {
        return new InvalidInputException(
                ErrorCode.WEBAUTHN_FAILED, field + ": " + reason, List.of(new FieldError(field, reason)));
    }
}
