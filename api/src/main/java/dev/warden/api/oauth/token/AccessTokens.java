package dev.warden.api.oauth.token;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.keys.SigningKeys;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Access tokens as RFC 9068 JWTs: header {@code typ} {@code at+jwt}, ES256 with the current {@link SigningKeys}
 * key; claims {@code iss} (the issuer, byte-identical), {@code sub} (the user id), {@code aud} (the resource),
 * {@code client_id}, {@code scope}, {@code jti}, {@code iat}, {@code exp}, and {@code gid} (the grant the token
 * belongs to, so that revoking the grant ends the token). {@link #verify} checks all of it; whether the grant is
 * still active is the caller's question.
 */
public final class AccessTokens {
    /** The grant-id claim. */
    static final String GRANT_CLAIM = "gid";
    private static final JOSEObjectType AT_JWT = new JOSEObjectType("at+jwt");
    private static final int MAX_LENGTH = 4096;

    private final SigningKeys keys;
    private final Issuer issuer;
    private final Duration ttl;
    private final InstantSource clock;

    public AccessTokens(SigningKeys keys, Issuer issuer, Duration ttl, InstantSource clock) {
        this.keys = keys;
        this.issuer = issuer;
        this.ttl = ttl;
        this.clock = clock;
    }

    /** What a valid token says. */
    public record Claims(String subject, String clientId, List<String> scopes, String audience, String jti,
                         Instant issuedAt, Instant expiresAt, String grantId) {
        public Claims {
            scopes = List.copyOf(scopes);
        }
    }

    /** A token just issued, with its lifetime in seconds. */
    public record Issued(String token, Claims claims, long expiresIn) {
    }

    /** How long a token lives. */
    public Duration ttl() {
        return ttl;
    }

    /** Signs a new token. */
    public Issued issue(String subject, String clientId, List<String> scopes, String audience, String grantId) {
        Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Claims claims = new Claims(subject, clientId, scopes, audience, UUID.randomUUID().toString(), now, now.plus(ttl),
                grantId);
        ECKey key = keys.signingKey();
        JWTClaimsSet set = new JWTClaimsSet.Builder()
                .issuer(issuer.value())
                .subject(subject)
                .audience(audience)
                .claim("client_id", clientId)
                .claim("scope", String.join(" ", scopes))
                .jwtID(claims.jti())
                .issueTime(Date.from(now))
                .expirationTime(Date.from(claims.expiresAt()))
                .claim(GRANT_CLAIM, grantId)
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).type(AT_JWT).keyID(key.getKeyID()).build(),
                set);
        try {
            jwt.sign(new ECDSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign an access token", e);
        }
        return new Issued(jwt.serialize(), claims, ttl.toSeconds());
    }

    /** True when {@code token} looks like a JWT (this resolver's kind of credential). */
    public static boolean looksLikeJwt(String token) {
        return token.startsWith("eyJ") && token.chars().filter(c -> c == '.').count() == 2;
    }

    /** The claims of {@code token} when it is one of ours: signature, type, issuer, expiry and claims all good. */
    public Optional<Claims> verify(String token) {
        if (token.length() > MAX_LENGTH || !looksLikeJwt(token)) {
            return Optional.empty();
        }
        try {
            SignedJWT jwt = SignedJWT.parse(token);
            JWSHeader header = jwt.getHeader();
            if (!JWSAlgorithm.ES256.equals(header.getAlgorithm()) || !AT_JWT.equals(header.getType())
                    || header.getKeyID() == null) {
                return Optional.empty();
            }
            Optional<ECKey> key = keys.verificationKey(header.getKeyID());
            if (key.isEmpty() || !jwt.verify(new ECDSAVerifier(key.get()))) {
                return Optional.empty();
            }
            JWTClaimsSet set = jwt.getJWTClaimsSet();
            Instant now = clock.instant();
            if (!issuer.value().equals(set.getIssuer()) || set.getExpirationTime() == null
                    || !set.getExpirationTime().toInstant().isAfter(now) || set.getAudience().size() != 1
                    || set.getSubject() == null || set.getJWTID() == null) {
                return Optional.empty();
            }
            String scope = set.getStringClaim("scope");
            String clientId = set.getStringClaim("client_id");
            String grantId = set.getStringClaim(GRANT_CLAIM);
            if (scope == null || clientId == null || grantId == null) {
                return Optional.empty();
            }
            return Optional.of(new Claims(set.getSubject(), clientId,
                    scope.isEmpty() ? List.of() : List.of(scope.split(" ")), set.getAudience().getFirst(), set.getJWTID(),
                    set.getIssueTime() == null ? now : set.getIssueTime().toInstant(),
                    set.getExpirationTime().toInstant(), grantId));
        } catch (ParseException | JOSEException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
