package dev.warden.api.oauth.clients;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.auth.Tokens;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Dynamic client registration (RFC 7591), {@code POST /} of {@code /mcp/register} and {@code /oauth/register}:
 * 201 with the registered metadata, {@code client_id}, {@code client_id_issued_at} and, for a confidential
 * client, {@code client_secret} and {@code client_secret_expires_at} (0: never). Who may register is the
 * {@link Gate}'s answer; the per-IP cap is the rate-limit filter's (SPEC Limits). A client registered with a valid
 * initial access token is {@link OAuthClient#VETTED}: its redirect URIs may receive error redirects.
 */
public final class RegistrationRoutes implements DeclaredService {
    private final ClientRegistrar registrar;
    private final Gate gate;
    private final String via;
    private final Predicate<String> knownScope;
    private final Set<String> grantTypes;
    private final long maxBodyBytes;

    /**
     * Who may register: anyone ({@code open}), or a caller with one of the initial access tokens
     * ({@code RegistrationTokens}, compared in constant time) or anyone when anonymous registration is allowed.
     * With no tokens and anonymous registration off, nobody (SPEC Authentication 5).
     */
    public record Gate(boolean open, boolean allowAnonymous, List<String> registrationTokens) {
        public Gate {
            registrationTokens = List.copyOf(registrationTokens);
        }

        /**
         * Lets the registration through, or throws.
         *
         * @return true when the caller presented a valid initial access token (the registration was vetted)
         */
        boolean check(Optional<String> bearer) {
            boolean vetted = bearer.map(this::known).orElse(false);
            if (open || vetted) {
                return vetted;
            }
            if (bearer.isPresent()) {
                throw new OAuthException(ErrorCode.OAUTH_INVALID_TOKEN, "the initial access token is not valid");
            }
            if (allowAnonymous) {
                return false;
            }
            if (registrationTokens.isEmpty()) {
                throw new OAuthException(ErrorCode.OAUTH_ACCESS_DENIED, "client registration is closed");
            }
            throw new OAuthException(ErrorCode.OAUTH_INVALID_TOKEN, "an initial access token is required");
        }

        /** True when {@code token} is one of the initial access tokens. */
        private boolean known(String token) {
            byte[] presented = Tokens.hash(token);
            boolean match = false;
            for (String candidate : registrationTokens) {
                // every token is compared, so the time taken says nothing about which matched
                match |= MessageDigest.isEqual(presented, Tokens.hash(candidate));
            }
            return match;
        }
    }

    /**
     * @param grantTypes the grant types a client may register (the server's registrable token grants)
     */
    public RegistrationRoutes(
            ClientRegistrar registrar,
            Gate gate,
            String via,
            Predicate<String> knownScope,
            Set<String> grantTypes,
            long maxBodyBytes) {
        this.registrar = registrar;
        this.gate = gate;
        this.via = via;
        this.knownScope = knownScope;
        this.grantTypes = Set.copyOf(grantTypes);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        // Open at the filter: the gate judges the initial access token itself.
        rules.post("/", Access.open(), this::register);
    }

    private void register(ServerRequest req, ServerResponse res) {
        boolean vetted = gate.check(AuthFilter.bearerToken(req));
        ObjectNode body = RequestReader.readObject(req, maxBodyBytes);
        ClientMetadata metadata = ClientMetadata.read(body, OAuthClient.BASIC, knownScope, grantTypes);
        ClientRegistrar.Registered registered = registrar.register(metadata, vetted ? OAuthClient.VETTED : via);
        OAuthClient client = registered.client();
        ObjectNode answer = client.metadata().deepCopy();
        answer.put("client_id", client.clientId());
        answer.put("client_id_issued_at", client.createdAt().getEpochSecond());
        registered.secret().ifPresent(secret -> {
            answer.put("client_secret", secret);
            answer.put(
                    "client_secret_expires_at",
                    client.secretExpiresAt().map(Instant::getEpochSecond).orElse(0L));
        });
        Responses.json(res, Status.CREATED_201, answer);
    }
}
