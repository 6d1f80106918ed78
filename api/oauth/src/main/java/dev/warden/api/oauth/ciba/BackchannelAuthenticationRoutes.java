package dev.warden.api.oauth.ciba;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.agents.AgentClientRepository;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.api.oauth.clients.ClientAuthenticator;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The backchannel authentication endpoint, {@code POST /oauth/bc-authorize} (OpenID CIBA Core 1.0 section 7, poll
 * mode; docs/approvals.md): an agent bound as an OAuth client asks its owner to approve {@code scope} on
 * {@code resource}, naming them with {@code login_hint} (their user id) and showing {@code binding_message}. The
 * request becomes an approval request for the owner; the answer is {@code {auth_req_id, expires_in, interval}}, and
 * the client polls the token endpoint with {@code grant_type=urn:openid:params:grant-type:ciba}. Errors are RFC 6749
 * bodies ({@code unknown_user_id} for a hint that is not the agent's owner, whoever it names).
 */
public final class BackchannelAuthenticationRoutes implements DeclaredService {
    /** The longest {@code binding_message} shown to the person. */
    static final int MAX_BINDING_MESSAGE = 256;
    /** How long a request lives unless the client asks for less ({@code requested_expiry}). */
    static final Duration DEFAULT_EXPIRY = Duration.ofMinutes(10);
    /** The longest {@code requested_expiry}. */
    static final Duration MAX_EXPIRY = Duration.ofHours(1);

    private final ClientAuthenticator clients;
    private final AgentDirectory agents;
    private final BackchannelRequests requests;
    private final BackchannelApprovals approvals;
    private final ProtectedResources resources;
    private final OAuthConfig config;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public BackchannelAuthenticationRoutes(
            ClientAuthenticator clients,
            AgentDirectory agents,
            BackchannelRequests requests,
            BackchannelApprovals approvals,
            ProtectedResources resources,
            OAuthConfig config,
            InstantSource clock,
            long maxBodyBytes) {
        this.clients = clients;
        this.agents = agents;
        this.requests = requests;
        this.approvals = approvals;
        this.resources = resources;
        this.config = config;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        // Open at the filter: the client authenticates itself here, as at the token endpoint.
        rules.post("/", Access.open(), this::authenticate);
    }

    private void authenticate(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        OAuthClient client = clients.authenticate(req, form);
        if (!client.allows(GrantTypes.CIBA) || !AgentClientRepository.REGISTERED_VIA.equals(client.registeredVia())) {
            throw new OAuthException(
                    ErrorCode.OAUTH_UNAUTHORIZED_CLIENT,
                    "only an agent bound as an OAuth client may ask its owner through the backchannel");
        }
        Agent agent = agents.agent(AgentId.of(client.clientId()))
                .orElseThrow(() -> new OAuthException(ErrorCode.OAUTH_INVALID_CLIENT, "the client's agent is gone"));
        long hints = Stream.of("login_hint", "login_hint_token", "id_token_hint")
                .filter(form::containsKey)
                .count();
        if (hints != 1 || !form.containsKey("login_hint")) {
            throw new OAuthException(
                    ErrorCode.OAUTH_INVALID_REQUEST,
                    "give exactly one hint: login_hint, the user id of the agent's owner (login_hint_token and "
                            + "id_token_hint are not supported)");
        }
        if (!form.get("login_hint").equals(agent.ownerId().value())
                || !requests.isPerson(agent.ownerId().value())) {
            throw new OAuthException(
                    ErrorCode.OAUTH_UNKNOWN_USER_ID, "an agent asks its own owner: login_hint must be their user id");
        }
        Optional<String> bindingMessage = Optional.ofNullable(form.get("binding_message"));
        if (bindingMessage.isPresent()
                && (bindingMessage.get().isBlank()
                        || bindingMessage.get().length() > MAX_BINDING_MESSAGE
                        || bindingMessage.get().chars().anyMatch(Character::isISOControl))) {
            throw new OAuthException(
                    ErrorCode.OAUTH_INVALID_BINDING_MESSAGE,
                    "binding_message must be 1 to " + MAX_BINDING_MESSAGE + " printable characters");
        }
        Duration expiry = expiry(form.get("requested_expiry"));
        String requested = Optional.ofNullable(form.get("scope"))
                .map(s -> Arrays.stream(s.split(" "))
                        .filter(x -> !x.isEmpty() && !x.equals("openid"))
                        .collect(Collectors.joining(" ")))
                .orElse("");
        if (requested.isEmpty()) {
            throw new OAuthException(ErrorCode.OAUTH_INVALID_SCOPE, "scope must name what the agent asks for");
        }
        ProtectedResources.Resource resource = resources.resolve(Optional.ofNullable(form.get("resource")));
        String scope = String.join(" ", ProtectedResources.scopeFor(resource, Optional.of(requested)));
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Instant expiresAt = now.plus(expiry);
        BackchannelRequests.Minted minted = BackchannelRequests.mint();
        String approvalId = approvals.request(
                agent.id().value(), minted.key(), scope, resource.uri(), bindingMessage, expiresAt, now);
        requests.create(
                minted,
                client.clientId(),
                agent.ownerId().value(),
                approvalId,
                scope,
                resource.uri(),
                config.devicePollInterval(),
                expiresAt,
                now);
        ObjectNode body = Json.mapper()
                .createObjectNode()
                .put("auth_req_id", minted.authRequestId())
                .put("expires_in", expiry.toSeconds())
                .put("interval", config.devicePollInterval().toSeconds());
        res.header(HeaderNames.create("Pragma"), "no-cache");
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        Responses.json(res, Status.OK_200, body);
    }

    private static Duration expiry(String requested) {
        if (requested == null) {
            return DEFAULT_EXPIRY;
        }
        try {
            long seconds = Long.parseLong(requested);
            if (seconds >= 1 && seconds <= MAX_EXPIRY.toSeconds()) {
                return Duration.ofSeconds(seconds);
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new OAuthException(
                ErrorCode.OAUTH_INVALID_REQUEST,
                "requested_expiry must be a whole number of seconds from 1 to " + MAX_EXPIRY.toSeconds());
    }
}
