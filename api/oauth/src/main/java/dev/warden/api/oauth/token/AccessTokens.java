package dev.warden.api.oauth.token;

import com.fasterxml.jackson.core.JsonGenerator;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.api.auth.Tokens;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.keys.EcdsaProvider;
import dev.warden.api.oauth.keys.SigningKeys;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.cache.BoundedCache;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Access tokens as RFC 9068 JWTs: header {@code typ} {@code at+jwt}, ES256 with the current {@link SigningKeys}
 * key; claims {@code iss} (the issuer, byte-identical), {@code sub} (the user id), {@code aud} (the resource),
 * {@code client_id}, {@code scope}, {@code jti}, {@code iat}, {@code exp}, and {@code gid} (the grant the token
 * belongs to, so that revoking the grant ends the token); a token an agent holds adds {@code act} (RFC 8693, the
 * acting agents nested, current outermost) or, when the agent is the subject itself (client credentials),
 * {@code sub_kind: "agent"}. {@link #verify} checks all of it; whether the grant is still active is the caller's
 * question.
 */
public final class AccessTokens {
    /** The grant-id claim. */
    static final String GRANT_CLAIM = "gid";
    /** RFC 8693 actor claim. */
    static final String ACT_CLAIM = "act";
    /** Present ({@code "agent"}) when the subject is an agent, not a user. */
    static final String SUBJECT_KIND_CLAIM = "sub_kind";
    /**
     * The state a stateless token was issued in ({@link Chain}): {@code {"a": [{"id", "v"}], "d": [delegation ids],
     * "g"?: root grant}}.
     */
    static final String CHAIN_CLAIM = "wdn_chain";

    private static final int MAX_CHAIN_DELEGATIONS = 64;
    /** The deepest actor chain a token may carry (the largest maxDepth plus the first actor). */
    static final int MAX_ACTORS = 11;

    private static final JOSEObjectType AT_JWT = new JOSEObjectType("at+jwt");
    private static final int MAX_LENGTH = 4096;
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private static final int MAX_CACHED_KEYS = 64;
    /** Past this many verified tokens (about 0.5 KB each) the memory of them starts again. */
    static final int MAX_VERIFIED = 20_000;

    private final SigningKeys keys;
    private final BoundedCache<String, JWSVerifier> verifiers = new BoundedCache<>(MAX_CACHED_KEYS);
    private final BoundedCache<String, Header> headers = new BoundedCache<>(MAX_CACHED_KEYS);
    /**
     * Tokens whose signature and claims were verified, by the SHA-256 of the token: an ES256 verification is most of
     * what introspecting or presenting a token costs (D188), and a resource server presents the same token many
     * times. Only what passed is kept; expiry is checked on every use, and revocation is not this cache's business
     * ({@link TokenValidity}).
     */
    private final BoundedCache<String, Claims> verified = new BoundedCache<>(MAX_VERIFIED);

    private final Issuer issuer;
    private final Duration ttl;
    private final InstantSource clock;

    public AccessTokens(SigningKeys keys, Issuer issuer, Duration ttl, InstantSource clock) {
        this.keys = keys;
        this.issuer = issuer;
        this.ttl = ttl;
        this.clock = clock;
    }

    /** Who a token's {@code sub} is: a user, or an agent (a client-credentials token of a bound agent). */
    public enum SubjectKind {
        USER,
        AGENT
    }

    /**
     * What a valid token says. {@code actors} are the agents acting for the subject (RFC 8693 {@code act}), the
     * current actor first and the first actor last; empty for a token the subject uses itself.
     */
    public record Claims(
            String subject,
            SubjectKind subjectKind,
            String clientId,
            List<String> scopes,
            String audience,
            String jti,
            Instant issuedAt,
            Instant expiresAt,
            String grantId,
            List<String> actors,
            Optional<Chain> chain) {
        public Claims {
            scopes = List.copyOf(scopes);
            actors = List.copyOf(actors);
        }

        /** The RFC 8693 {@code act} claim of these actors (empty when there are none). */
        public Optional<Map<String, Object>> actClaim() {
            return actors.isEmpty() ? Optional.empty() : Optional.of(act(actors, 0));
        }

        /** The agent-to-agent hops of the actor chain: 0 for a user's token or one agent acting for them. */
        public int delegationHops() {
            return Math.max(0, actors.size() - 1);
        }
    }

    /**
     * What a stateless token's validity is derived from (D185): the version of each agent of its chain when it was
     * issued (the agent's {@code updatedAt}, which every change to the agent moves: rotation, suspension, its OAuth
     * client bound or unbound), first actor first; the delegations its scopes came through; and, for a token
     * exchange, the user's grant the chain started from. No row is stored for such a token.
     */
    public record Chain(List<AgentVersion> agents, List<String> delegations, Optional<String> rootGrant) {
        public Chain {
            agents = List.copyOf(agents);
            delegations = List.copyOf(delegations);
        }
    }

    /** An agent of a {@link Chain} and its version when the token was issued. */
    public record AgentVersion(String id, Instant version) {}

    /**
     * What to sign: the subject and its kind, the client, scopes, audience, grant, actors (current first) and the
     * latest expiry the grant allows ({@code notAfter}; the token's own lifetime applies when it is later).
     */
    public record Spec(
            String subject,
            SubjectKind subjectKind,
            String clientId,
            List<String> scopes,
            String audience,
            String grantId,
            List<String> actors,
            Optional<Instant> notAfter,
            Duration ttl,
            List<String> amr,
            Optional<Instant> authTime,
            Optional<Chain> chain) {
        public Spec {
            scopes = List.copyOf(scopes);
            actors = List.copyOf(actors);
            amr = List.copyOf(amr);
        }

        /** A spec that says nothing of how a user signed in (agents, exchanged tokens). */
        public Spec(
                String subject,
                SubjectKind subjectKind,
                String clientId,
                List<String> scopes,
                String audience,
                String grantId,
                List<String> actors,
                Optional<Instant> notAfter,
                Duration ttl) {
            this(
                    subject,
                    subjectKind,
                    clientId,
                    scopes,
                    audience,
                    grantId,
                    actors,
                    notAfter,
                    ttl,
                    List.of(),
                    Optional.empty(),
                    Optional.empty());
        }

        /** This spec for a stateless token issued in {@code chain}. */
        public Spec withChain(Chain chain) {
            return new Spec(
                    subject,
                    subjectKind,
                    clientId,
                    scopes,
                    audience,
                    grantId,
                    actors,
                    notAfter,
                    ttl,
                    amr,
                    authTime,
                    Optional.of(chain));
        }
    }

    /** A token just issued, with its lifetime in seconds. */
    public record Issued(String token, Claims claims, long expiresIn) {}

    /** How long a token lives. */
    public Duration ttl() {
        return ttl;
    }

    /** Signs a new token for a user's grant, with this server's access-token lifetime. */
    public Issued issue(String subject, String clientId, List<String> scopes, String audience, String grantId) {
        return issue(new Spec(
                subject, SubjectKind.USER, clientId, scopes, audience, grantId, List.of(), Optional.empty(), ttl));
    }

    /** Signs a new token as {@code spec} says. */
    public Issued issue(Spec spec) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        Instant expiresAt = now.plus(spec.ttl());
        if (spec.notAfter().isPresent() && spec.notAfter().get().isBefore(expiresAt)) {
            expiresAt = spec.notAfter().get().truncatedTo(ChronoUnit.SECONDS);
        }
        Claims claims = new Claims(
                spec.subject(),
                spec.subjectKind(),
                spec.clientId(),
                spec.scopes(),
                spec.audience(),
                UUID.randomUUID().toString(),
                now,
                expiresAt,
                spec.grantId(),
                spec.actors(),
                spec.chain());
        // The claims are written straight to JSON and signed over the header encoded once per key (D190): building
        // Nimbus's claims map and serializing it again with the header was a tenth of a client-credentials token.
        ECKey key = keys.signingKey();
        Header header = header(key);
        String signingInput = header.encoded() + '.' + BASE64URL.encodeToString(payload(claims, spec));
        String token;
        try {
            token = signingInput
                    + '.'
                    + keys.signer(key).sign(header.jose(), signingInput.getBytes(StandardCharsets.US_ASCII));
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign an access token", e);
        }
        return new Issued(token, claims, Math.max(0, expiresAt.getEpochSecond() - now.getEpochSecond()));
    }

    /** The protected header of the tokens signed with one key: as Nimbus's signer takes it, and base64url-encoded. */
    private record Header(JWSHeader jose, String encoded) {}

    /** The header for {@code key}, made once per key (keys never change under a key id). */
    private Header header(ECKey key) {
        Header cached = headers.get(key.getKeyID());
        if (cached == null) {
            JWSHeader jose = new JWSHeader.Builder(JWSAlgorithm.ES256)
                    .type(AT_JWT)
                    .keyID(key.getKeyID())
                    .build();
            cached = new Header(jose, jose.toBase64URL().toString());
            headers.put(key.getKeyID(), cached);
        }
        return cached;
    }

    /**
     * The JWT claims set of {@code claims}: {@code iss}, {@code sub}, {@code aud} (one audience, a string),
     * {@code client_id}, {@code scope}, {@code jti}, {@code iat}, {@code exp}, {@code gid}, then {@code sub_kind},
     * {@code act}, {@code wdn_chain}, {@code amr} and {@code auth_time} when they apply. What {@link #verify} reads.
     */
    private byte[] payload(Claims claims, Spec spec) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator json = Json.mapper().getFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("iss", issuer.canonical());
            json.writeStringField("sub", claims.subject());
            json.writeStringField("aud", claims.audience());
            json.writeStringField("client_id", claims.clientId());
            json.writeStringField("scope", String.join(" ", claims.scopes()));
            json.writeStringField("jti", claims.jti());
            json.writeNumberField("iat", claims.issuedAt().getEpochSecond());
            json.writeNumberField("exp", claims.expiresAt().getEpochSecond());
            json.writeStringField(GRANT_CLAIM, claims.grantId());
            if (claims.subjectKind() == SubjectKind.AGENT) {
                json.writeStringField(SUBJECT_KIND_CLAIM, "agent");
            }
            Optional<Map<String, Object>> act = claims.actClaim();
            if (act.isPresent()) {
                json.writeObjectField(ACT_CLAIM, act.get());
            }
            if (claims.chain().isPresent()) {
                json.writeFieldName(CHAIN_CLAIM);
                writeChain(json, claims.chain().get());
            }
            if (!spec.amr().isEmpty()) {
                json.writeArrayFieldStart("amr");
                for (String method : spec.amr()) {
                    json.writeString(method);
                }
                json.writeEndArray();
            }
            if (spec.authTime().isPresent()) {
                json.writeNumberField("auth_time", spec.authTime().get().getEpochSecond());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** {@code {"a": [{"id", "v"}, ...], "d": [ids], "g"?: root grant}}, as {@link #chain(Object)} reads it. */
    private static void writeChain(JsonGenerator json, Chain chain) throws IOException {
        json.writeStartObject();
        json.writeArrayFieldStart("a");
        for (AgentVersion agent : chain.agents()) {
            json.writeStartObject();
            json.writeStringField("id", agent.id());
            json.writeStringField("v", agent.version().toString());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("d");
        for (String delegation : chain.delegations()) {
            json.writeString(delegation);
        }
        json.writeEndArray();
        if (chain.rootGrant().isPresent()) {
            json.writeStringField("g", chain.rootGrant().get());
        }
        json.writeEndObject();
    }

    /**
     * The verifier of {@code key}, made once per key: building one checks the key (curve, point), which costs as
     * much as a verification. Keys never change under a key id; the cache is dropped when it grows past a bound.
     */
    private JWSVerifier verifier(ECKey key) throws JOSEException {
        JWSVerifier cached = verifiers.get(key.getKeyID());
        if (cached == null) {
            cached = EcdsaProvider.verifier(key);
            verifiers.put(key.getKeyID(), cached);
        }
        return cached;
    }

    /** RFC 8693 section 4.1: {@code {"sub": current actor, "act": {"sub": the one before, ...}}}. */
    private static Map<String, Object> act(List<String> actors, int from) {
        Map<String, Object> act = new LinkedHashMap<>();
        act.put("sub", actors.get(from));
        if (from + 1 < actors.size()) {
            act.put(ACT_CLAIM, act(actors, from + 1));
        }
        return act;
    }

    /** The actors of an {@code act} claim, current first; empty when it is malformed or deeper than allowed. */
    private static Optional<List<String>> actors(Object act) {
        List<String> actors = new ArrayList<>();
        Object at = act;
        while (at != null) {
            if (!(at instanceof Map<?, ?> map)
                    || !(map.get("sub") instanceof String sub)
                    || actors.size() >= MAX_ACTORS) {
                return Optional.empty();
            }
            actors.add(sub);
            at = map.get(ACT_CLAIM);
        }
        return Optional.of(actors);
    }

    /** The {@link #CHAIN_CLAIM} as signed, or empty when it is not of that shape. */
    private static Optional<Chain> chain(Object claim) {
        if (!(claim instanceof Map<?, ?> map)
                || !(map.get("a") instanceof List<?> agentList)
                || !(map.get("d") instanceof List<?> delegationList)
                || agentList.isEmpty()
                || agentList.size() > MAX_ACTORS
                || delegationList.size() > MAX_CHAIN_DELEGATIONS
                || (map.get("g") != null && !(map.get("g") instanceof String))) {
            return Optional.empty();
        }
        try {
            List<AgentVersion> agents = new ArrayList<>();
            for (Object entry : agentList) {
                if (!(entry instanceof Map<?, ?> agent)
                        || !(agent.get("id") instanceof String id)
                        || !(agent.get("v") instanceof String version)) {
                    return Optional.empty();
                }
                agents.add(new AgentVersion(id, Instant.parse(version)));
            }
            List<String> delegations = new ArrayList<>();
            for (Object id : delegationList) {
                if (!(id instanceof String s)) {
                    return Optional.empty();
                }
                delegations.add(s);
            }
            return Optional.of(new Chain(agents, delegations, Optional.ofNullable((String) map.get("g"))));
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty();
        }
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
        String digest = Base64.getUrlEncoder().withoutPadding().encodeToString(Tokens.hash(token));
        Claims known = verified.get(digest);
        if (known != null) {
            return known.expiresAt().isAfter(clock.instant()) ? Optional.of(known) : Optional.empty();
        }
        Optional<Claims> claims = verifySignatureAndClaims(token);
        claims.ifPresent(c -> verified.put(digest, c));
        return claims;
    }

    private Optional<Claims> verifySignatureAndClaims(String token) {
        try {
            SignedJWT jwt = SignedJWT.parse(token);
            JWSHeader header = jwt.getHeader();
            if (!JWSAlgorithm.ES256.equals(header.getAlgorithm())
                    || !AT_JWT.equals(header.getType())
                    || header.getKeyID() == null) {
                return Optional.empty();
            }
            Optional<ECKey> key = keys.verificationKey(header.getKeyID());
            if (key.isEmpty() || !jwt.verify(verifier(key.get()))) {
                return Optional.empty();
            }
            JWTClaimsSet set = jwt.getJWTClaimsSet();
            Instant now = clock.instant();
            if (!issuer.canonical().equals(set.getIssuer())
                    || set.getExpirationTime() == null
                    || !set.getExpirationTime().toInstant().isAfter(now)
                    || set.getAudience().size() != 1
                    || set.getSubject() == null
                    || set.getJWTID() == null) {
                return Optional.empty();
            }
            String scope = set.getStringClaim("scope");
            String clientId = set.getStringClaim("client_id");
            String grantId = set.getStringClaim(GRANT_CLAIM);
            String kind = set.getStringClaim(SUBJECT_KIND_CLAIM);
            Object act = set.getClaim(ACT_CLAIM);
            Optional<List<String>> actors = act == null ? Optional.of(List.of()) : actors(act);
            Object chainClaim = set.getClaim(CHAIN_CLAIM);
            Optional<Optional<Chain>> chain = chainClaim == null
                    ? Optional.of(Optional.empty())
                    : chain(chainClaim).map(Optional::of);
            if (scope == null
                    || clientId == null
                    || grantId == null
                    || actors.isEmpty()
                    || chain.isEmpty()
                    || (kind != null && !kind.equals("agent"))) {
                return Optional.empty();
            }
            return Optional.of(new Claims(
                    set.getSubject(),
                    kind == null ? SubjectKind.USER : SubjectKind.AGENT,
                    clientId,
                    scope.isEmpty() ? List.of() : List.of(scope.split(" ")),
                    set.getAudience().getFirst(),
                    set.getJWTID(),
                    set.getIssueTime() == null ? now : set.getIssueTime().toInstant(),
                    set.getExpirationTime().toInstant(),
                    grantId,
                    actors.get(),
                    chain.get()));
        } catch (ParseException | JOSEException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
