package dev.warden.api.oauth.server;

import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.auth.CredentialResolver;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.events.PublishedEvents;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.oauth.OAuthErrors;
import dev.warden.api.oauth.ProtectedResources;
import dev.warden.api.oauth.agents.AgentClientRepository;
import dev.warden.api.oauth.agents.AgentDirectory;
import dev.warden.api.oauth.agents.BoundAgentClients;
import dev.warden.api.oauth.authorize.AuthorizationFlow;
import dev.warden.api.oauth.authorize.AuthorizeRoutes;
import dev.warden.api.oauth.authorize.CodeRepository;
import dev.warden.api.oauth.authorize.ConsentRepository;
import dev.warden.api.oauth.authorize.ConsentRoutes;
import dev.warden.api.oauth.authorize.LoginAssets;
import dev.warden.api.oauth.authorize.LoginRoutes;
import dev.warden.api.oauth.authorize.Pages;
import dev.warden.api.oauth.authorize.PasskeyLoginRoutes;
import dev.warden.api.oauth.authorize.SecondFactorRoutes;
import dev.warden.api.oauth.ciba.BackchannelApprovals;
import dev.warden.api.oauth.ciba.BackchannelAuthenticationRoutes;
import dev.warden.api.oauth.ciba.BackchannelRequests;
import dev.warden.api.oauth.clients.ClientAuthenticator;
import dev.warden.api.oauth.clients.ClientMetadataDocuments;
import dev.warden.api.oauth.clients.ClientRegistrar;
import dev.warden.api.oauth.clients.ClientRepository;
import dev.warden.api.oauth.clients.Clients;
import dev.warden.api.oauth.clients.RegistrationRoutes;
import dev.warden.api.oauth.device.DeviceAuthorizationRoutes;
import dev.warden.api.oauth.device.DeviceCodes;
import dev.warden.api.oauth.device.DeviceVerificationRoutes;
import dev.warden.api.oauth.discovery.DiscoveryRoutes;
import dev.warden.api.oauth.discovery.ResourceChallenges;
import dev.warden.api.oauth.introspection.IntrospectionRoutes;
import dev.warden.api.oauth.introspection.RevocationRoutes;
import dev.warden.api.oauth.keys.JwksRoutes;
import dev.warden.api.oauth.keys.SigningKeys;
import dev.warden.api.oauth.token.AccessTokenResolver;
import dev.warden.api.oauth.token.AccessTokens;
import dev.warden.api.oauth.token.GrantRepository;
import dev.warden.api.oauth.token.TokenGrants;
import dev.warden.api.oauth.token.TokenRoutes;
import dev.warden.api.oauth.token.TokenValidity;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.UsersComponent;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import dev.warden.runtime.outbound.GuardedHttp;
import dev.warden.runtime.outbound.TargetGuard;
import java.time.InstantSource;
import java.util.List;

/**
 * The wired authorization server of one process: its routes (as mounts with their error surfaces), the
 * credential resolver of its access tokens and the protected-resource challenges. Built by the launcher and
 * the tests alike.
 */
public final class OAuthServer implements Component {
    private final Issuer issuer;
    private final ProtectedResources resources;
    private final TokenValidity validity;
    private final PublishedEvents published;
    private final AccessTokenResolver resolver;
    private final SigningKeys keys;
    private final AccessTokens accessTokens;
    private final GrantRepository grants;
    private final ClientRepository clientRepository;
    private final OAuthConfig config;
    private final Database db;
    private final UsersComponent users;
    private final ClientIp clientIp;
    private final InstantSource clock;
    private final GuardedHttp outbound;
    private final AgentDirectory directory;
    private final AgentClientRepository agentClients;
    private final CodeRepository codes;
    private final DeviceCodes deviceCodes;
    private final BackchannelRequests backchannelRequests;
    private final BackchannelApprovals backchannelApprovals;
    private final TokenGrants tokenGrants;
    private final long maxBodyBytes;

    public OAuthServer(
            OAuthConfig config,
            Issuer issuer,
            Database db,
            EventOutbox outbox,
            PublishedEvents published,
            GrantRepository grants,
            UsersComponent users,
            AgentDirectory directory,
            ClientIp clientIp,
            BackchannelApprovals backchannelApprovals,
            boolean allowPrivateTargets,
            InstantSource clock,
            long maxBodyBytes) {
        this.config = config;
        this.maxBodyBytes = maxBodyBytes;
        this.directory = directory;
        this.agentClients = new AgentClientRepository(db);
        this.issuer = issuer;
        this.db = db;
        this.users = users;
        this.clientIp = clientIp;
        this.clock = clock;
        this.resources = new ProtectedResources(issuer, config.resources());
        SecretCipher cipher =
                config.keyEncryptionKeyBytes().map(SecretCipher::aes256).orElseGet(SecretCipher::none);
        this.keys = new SigningKeys(db, cipher, config.keyRotation(), config.accessTokenTtl(), clock);
        this.accessTokens = new AccessTokens(keys, issuer, config.accessTokenTtl(), clock);
        this.grants = grants;
        this.validity = new TokenValidity(grants, directory);
        this.resolver = new AccessTokenResolver(accessTokens, validity, directory, clock);
        this.published = published;
        this.clientRepository = new ClientRepository(db);
        this.outbound = new GuardedHttp(
                TargetGuard.system(allowPrivateTargets), ClientMetadataDocuments.DEADLINE, config.outboundTls());
        this.codes = new CodeRepository(db);
        this.deviceCodes = new DeviceCodes(db);
        this.backchannelRequests = new BackchannelRequests(db);
        this.backchannelApprovals = backchannelApprovals;
        this.tokenGrants = TokenGrants.standard(
                db,
                codes,
                deviceCodes,
                backchannelRequests,
                backchannelApprovals,
                grants,
                validity,
                outbox,
                published,
                accessTokens,
                resources,
                directory,
                config,
                clock,
                config.extraGrants());
    }

    /** The grant types the token endpoint offers: the one list every reader of grant types takes them from. */
    public TokenGrants tokenGrants() {
        return tokenGrants;
    }

    /** Closes the outbound connections (client metadata documents). */
    @Override
    public void close() {
        outbound.close();
    }

    public Issuer issuer() {
        return issuer;
    }

    /** The keys this server signs with (and its JWKS publishes): Security Event Tokens are signed with them too. */
    public SigningKeys signingKeys() {
        return keys;
    }

    /** The resolver of this server's access tokens, for the credential chain. */
    public CredentialResolver accessTokenResolver() {
        return resolver;
    }

    /** Service agents bound to OAuth clients. */
    public AgentClientRepository agentClients() {
        return agentClients;
    }

    /** The {@code WWW-Authenticate} challenges of Warden's protected resources. */
    public ResourceChallenges challenges() {
        return new ResourceChallenges(issuer);
    }

    /** Every route of the authorization server. */
    @Override
    public List<WardenApi.Mount> mounts() {
        Clients clients = new Clients(
                clientRepository,
                new ClientMetadataDocuments(
                        outbound, config.clientMetadataPorts(), resources::isScope, tokenGrants.registrable(), clock),
                new BoundAgentClients(agentClients, directory, clock));
        ClientAuthenticator clientAuth = new ClientAuthenticator(clients, clock);
        ClientRegistrar registrar = new ClientRegistrar(clientRepository, config.clientSecretTtl(), clock);
        RegistrationRoutes.Gate oauthGate =
                new RegistrationRoutes.Gate(false, config.allowAnonymousRegistration(), config.registrationTokens());
        RegistrationRoutes.Gate mcpGate = config.mcpRegistrationOpen()
                ? new RegistrationRoutes.Gate(true, true, config.registrationTokens())
                : oauthGate;
        Pages pages = new Pages(clientIp);
        AuthorizationFlow flow = new AuthorizationFlow(
                clients,
                resources,
                issuer,
                // The pages find the signed-in user by the session cookie: sessions are the only credential there.
                users.cookies(),
                codes,
                new ConsentRepository(db),
                config.codeTtl(),
                config.loginPage(),
                config.consentPage(),
                clock);
        TokenRoutes token = new TokenRoutes(clientAuth, tokenGrants, published, clientIp, clock, maxBodyBytes);
        AuthorizeRoutes authorize = new AuthorizeRoutes(flow);
        return List.of(
                new WardenApi.Mount("/.well-known", new DiscoveryRoutes(issuer, resources, tokenGrants.types())),
                new WardenApi.Mount(
                        "/mcp/register",
                        new RegistrationRoutes(
                                registrar, mcpGate, "mcp", resources::isScope, tokenGrants.registrable(), maxBodyBytes),
                        OAuthErrors.JSON),
                new WardenApi.Mount(
                        "/oauth/register",
                        new RegistrationRoutes(
                                registrar,
                                oauthGate,
                                "oauth",
                                resources::isScope,
                                tokenGrants.registrable(),
                                maxBodyBytes),
                        OAuthErrors.JSON),
                new WardenApi.Mount("/mcp/authorize", authorize, pages),
                new WardenApi.Mount("/oauth/authorize", authorize, pages),
                new WardenApi.Mount(
                        "/oauth/login",
                        new LoginRoutes(users.service(), users.cookies(), pages, clientIp, maxBodyBytes),
                        pages),
                new WardenApi.Mount(
                        "/oauth/totp",
                        new SecondFactorRoutes(users.service(), users.cookies(), pages, clientIp, maxBodyBytes),
                        pages),
                new WardenApi.Mount(
                        "/oauth/passkey",
                        new PasskeyLoginRoutes(users.passkeySignIn(), users.cookies(), pages, clientIp, maxBodyBytes),
                        pages),
                new WardenApi.Mount("/oauth/assets", new LoginAssets(), pages),
                new WardenApi.Mount(
                        "/oauth/consent", new ConsentRoutes(flow, users.service(), pages, maxBodyBytes), pages),
                new WardenApi.Mount("/mcp/token", token, OAuthErrors.JSON),
                new WardenApi.Mount("/oauth/token", token, OAuthErrors.JSON),
                new WardenApi.Mount(
                        "/oauth/revoke",
                        new RevocationRoutes(clientAuth, grants, accessTokens, clock, maxBodyBytes),
                        OAuthErrors.JSON),
                new WardenApi.Mount(
                        "/oauth/introspect",
                        new IntrospectionRoutes(
                                clientAuth, grants, validity, accessTokens, issuer, resources, clock, maxBodyBytes),
                        OAuthErrors.JSON),
                new WardenApi.Mount("/oauth/jwks", new JwksRoutes(keys)),
                new WardenApi.Mount(
                        "/auth/device/code",
                        new DeviceAuthorizationRoutes(
                                clientAuth, deviceCodes, resources, issuer, config, clock, maxBodyBytes),
                        OAuthErrors.JSON),
                new WardenApi.Mount(
                        "/oauth/bc-authorize",
                        new BackchannelAuthenticationRoutes(
                                clientAuth,
                                directory,
                                backchannelRequests,
                                backchannelApprovals,
                                resources,
                                config,
                                clock,
                                maxBodyBytes),
                        OAuthErrors.JSON),
                new WardenApi.Mount(
                        DeviceAuthorizationRoutes.VERIFICATION_PATH,
                        new DeviceVerificationRoutes(
                                flow, deviceCodes, clients, users.service(), pages, clock, maxBodyBytes),
                        pages));
    }
}
