package dev.warden.api.oauth.device;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.clients.ClientAuthenticator;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * The device authorization endpoint, {@code POST /auth/device/code} (RFC 8628 section 3.1-3.2): a client that
 * registered the device grant authenticates as at the token endpoint and asks for {@code scope} on
 * {@code resource} (as in an authorization request); the answer is {@code {device_code, user_code,
 * verification_uri, verification_uri_complete, expires_in, interval}}, never cached. Errors are RFC 6749 bodies.
 */
public final class DeviceAuthorizationRoutes implements DeclaredService {
    /** The device grant's {@code grant_type}. */
    /** Where the device sends its user. */
    public static final String VERIFICATION_PATH = "/auth/device";

    private final ClientAuthenticator clients;
    private final DeviceCodes codes;
    private final ProtectedResources resources;
    private final Issuer issuer;
    private final OAuthConfig config;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public DeviceAuthorizationRoutes(
            ClientAuthenticator clients,
            DeviceCodes codes,
            ProtectedResources resources,
            Issuer issuer,
            OAuthConfig config,
            InstantSource clock,
            long maxBodyBytes) {
        this.clients = clients;
        this.codes = codes;
        this.resources = resources;
        this.issuer = issuer;
        this.config = config;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        // Open at the filter: the client authenticates itself here, as at the token endpoint.
        rules.post("/", Access.open(), this::authorize);
    }

    private void authorize(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        OAuthClient client = clients.authenticate(req, form);
        if (!client.allows(GrantTypes.DEVICE_CODE)) {
            throw new OAuthException(
                    ErrorCode.OAUTH_UNAUTHORIZED_CLIENT, "this client did not register the device_code grant type");
        }
        ProtectedResources.Resource resource = resources.resolve(Optional.ofNullable(form.get("resource")));
        String scope = String.join(
                " ",
                ProtectedResources.scopeFor(
                        resource, Optional.ofNullable(form.get("scope")).or(client::scope)));
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        DeviceCodes.Issued issued = codes.create(
                client.clientId(), scope, resource.uri(), config.deviceCodeTtl(), config.devicePollInterval(), now);
        String verification = issuer.value() + VERIFICATION_PATH;
        ObjectNode body = Json.mapper()
                .createObjectNode()
                .put("device_code", issued.deviceCode())
                .put("user_code", issued.userCode())
                .put("verification_uri", verification)
                .put(
                        "verification_uri_complete",
                        verification + "?user_code=" + URLEncoder.encode(issued.userCode(), StandardCharsets.UTF_8))
                .put("expires_in", config.deviceCodeTtl().toSeconds())
                .put("interval", issued.interval().toSeconds());
        res.header(HeaderNames.create("Pragma"), "no-cache");
        Responses.json(res, Status.OK_200, body);
    }
}
