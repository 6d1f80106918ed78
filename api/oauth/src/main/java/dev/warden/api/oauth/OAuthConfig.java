package dev.warden.api.oauth;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * The authorization server and protected-resource settings, node {@code warden.oauth} (every key in
 * docs/oauth.md). {@link #toString()} masks secrets.
 *
 * @param issuer                     the public URL clients reach Warden at, used byte-identically in every
 *                                   document and token; empty means {@code http://localhost:<port>}
 * @param accessTokenTtl             lifetime of an access token (JWT)
 * @param refreshTokenTtl            lifetime of a refresh token (each rotation starts it anew, the family
 *                                   never outlives {@link #grantMaxLifetime})
 * @param grantMaxLifetime           the hard end of a grant (refresh-token family)
 * @param codeTtl                    lifetime of an authorization code
 * @param mcpRegistrationOpen        whether {@code POST /mcp/register} is open to anyone (SPEC: open unless
 *                                   configuration restricts it); when false it is gated like
 *                                   {@code /oauth/register}
 * @param allowAnonymousRegistration {@code AllowAnonymousRegistration} of {@code POST /oauth/register}
 * @param registrationTokens         initial access tokens ({@code RegistrationTokens}) for registration
 * @param clientSecretTtl            lifetime of a confidential client's secret; zero means it never expires
 * @param loginPage                  an external login page to send users to instead of the built-in one
 * @param consentPage                an external consent page instead of the built-in one
 * @param keyEncryptionKey           base64 of 32 bytes: AES-256-GCM key for signing keys at rest
 * @param keyRotation                how long a signing key signs before a new one takes over
 * @param resources                  further protected resources (integrators' own MCP servers)
 * @param allowedOrigins             browser origins {@code /mcp} accepts besides the issuer's own and loopback
 * @param agentTokenTtl              lifetime of a token issued to an agent (client credentials, token exchange):
 *                                   how long a resource server that only checks signatures may honour it after
 *                                   a revocation (never longer than {@link #accessTokenTtl})
 * @param deviceCodeTtl              lifetime of a device code and its user code (RFC 8628)
 * @param devicePollInterval         the least time between two polls of a device code
 * @param clientMetadataPorts        the ports a client ID metadata document may be fetched from (443 unless
 *                                   configured)
 * @param outboundTls                the TLS context for fetching metadata documents (a private trust store, for
 *                                   tests and closed networks; set in code only); the JVM's default when empty
 * @param extraGrants                token grants offered besides Warden's own (extensions; set in code only)
 */
public record OAuthConfig(
        Optional<String> issuer,
        Duration accessTokenTtl,
        Duration refreshTokenTtl,
        Duration grantMaxLifetime,
        Duration codeTtl,
        boolean mcpRegistrationOpen,
        boolean allowAnonymousRegistration,
        List<String> registrationTokens,
        Duration clientSecretTtl,
        Optional<String> loginPage,
        Optional<String> consentPage,
        Optional<String> keyEncryptionKey,
        Duration keyRotation,
        List<Resource> resources,
        List<String> allowedOrigins,
        Duration agentTokenTtl,
        Duration deviceCodeTtl,
        Duration devicePollInterval,
        List<Integer> clientMetadataPorts,
        Optional<SSLContext> outboundTls,
        List<TokenGrant> extraGrants) {

    /** The lifetime of tokens issued to agents: {@link #agentTokenTtl}, at most {@link #accessTokenTtl}. */
    public Duration effectiveAgentTokenTtl() {
        return agentTokenTtl.compareTo(accessTokenTtl) < 0 ? agentTokenTtl : accessTokenTtl;
    }

    /** Bytes of the key-encryption key. */
    public static final int KEY_BYTES = 32;

    public OAuthConfig {
        registrationTokens = List.copyOf(registrationTokens);
        resources = List.copyOf(resources);
        allowedOrigins = List.copyOf(allowedOrigins);
        clientMetadataPorts = List.copyOf(clientMetadataPorts);
        extraGrants = List.copyOf(extraGrants);
        for (int port : clientMetadataPorts) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(
                        "warden.oauth.client-metadata-document-ports: " + port + " is not a port");
            }
        }
        issuer.ifPresent(OAuthConfig::checkIssuer);
        positive("access-token-ttl-seconds", accessTokenTtl);
        positive("refresh-token-ttl-seconds", refreshTokenTtl);
        positive("grant-max-lifetime-seconds", grantMaxLifetime);
        positive("code-ttl-seconds", codeTtl);
        positive("key-rotation-days", keyRotation);
        positive("agent-access-token-ttl-seconds", agentTokenTtl);
        positive("device-code-ttl-seconds", deviceCodeTtl);
        positive("device-poll-interval-seconds", devicePollInterval);
        if (deviceCodeTtl.compareTo(Duration.ofMinutes(30)) > 0) {
            throw new IllegalArgumentException("warden.oauth.device-code-ttl-seconds must be at most 1800");
        }
        if (codeTtl.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("warden.oauth.code-ttl-seconds must be at most 600 (RFC 6749 4.1.2)");
        }
        if (clientSecretTtl.isNegative()) {
            throw new IllegalArgumentException("warden.oauth.client-secret-ttl-seconds must not be negative");
        }
        keyEncryptionKey.ifPresent(OAuthConfig::decodeKey);
        loginPage.ifPresent(p -> absoluteUrl("login-page", p));
        consentPage.ifPresent(p -> absoluteUrl("consent-page", p));
    }

    /**
     * A protected resource other than Warden's own: tokens for it carry {@code uri} as audience.
     *
     * @param uri                  its canonical URI (RFC 8707 resource indicator, no fragment)
     * @param scopes               the scopes a client may ask for it
     * @param introspectionClients the client ids of this resource's servers: they may introspect tokens issued for
     *                             it (besides each token's own client; docs/security.md, "Introspection")
     */
    public record Resource(String uri, List<String> scopes, List<String> introspectionClients) {
        /** A resource that only its tokens' own clients may introspect. */
        public Resource(String uri, List<String> scopes) {
            this(uri, scopes, List.of());
        }

        public Resource {
            scopes = List.copyOf(scopes);
            introspectionClients = List.copyOf(introspectionClients);
            absoluteUrl("resources.uri", uri);
            if (URI.create(uri).getFragment() != null) {
                throw new IllegalArgumentException("warden.oauth.resources: " + uri + " must not have a fragment");
            }
        }
    }

    /** This configuration with key-encryption key {@code base64}. */
    public OAuthConfig withKeyEncryptionKey(String base64) {
        return new OAuthConfig(
                issuer,
                accessTokenTtl,
                refreshTokenTtl,
                grantMaxLifetime,
                codeTtl,
                mcpRegistrationOpen,
                allowAnonymousRegistration,
                registrationTokens,
                clientSecretTtl,
                loginPage,
                consentPage,
                Optional.of(base64),
                keyRotation,
                resources,
                allowedOrigins,
                agentTokenTtl,
                deviceCodeTtl,
                devicePollInterval,
                clientMetadataPorts,
                outboundTls,
                extraGrants);
    }

    /** The key-encryption key's bytes, if configured. */
    public Optional<byte[]> keyEncryptionKeyBytes() {
        return keyEncryptionKey.map(OAuthConfig::decodeKey);
    }

    private static byte[] decodeKey(String base64) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("warden.oauth.key-encryption-key must be base64 (of 32 bytes)");
        }
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException(
                    "warden.oauth.key-encryption-key must be base64 of 32 bytes, was " + key.length);
        }
        return key;
    }

    private static void checkIssuer(String issuer) {
        URI uri = absoluteUrl("issuer", issuer);
        if (uri.getQuery() != null || uri.getFragment() != null || issuer.endsWith("/")) {
            throw new IllegalArgumentException("warden.oauth.issuer must have no query, fragment or trailing slash "
                    + "(RFC 8414 section 2): " + issuer);
        }
    }

    private static URI absoluteUrl(String key, String value) {
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("warden.oauth." + key + " is not a URL: " + value);
        }
        if (!uri.isAbsolute()
                || uri.getHost() == null
                || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
            throw new IllegalArgumentException("warden.oauth." + key + " must be an absolute http(s) URL: " + value);
        }
        return uri;
    }

    private static void positive(String key, Duration d) {
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException("warden.oauth." + key + " must be positive");
        }
    }

    @Override
    public String toString() {
        return "OAuthConfig[issuer=" + issuer.orElse("(http://localhost:<port>)") + ", accessTokenTtl=" + accessTokenTtl
                + ", refreshTokenTtl=" + refreshTokenTtl + ", grantMaxLifetime=" + grantMaxLifetime + ", codeTtl="
                + codeTtl + ", mcpRegistrationOpen=" + mcpRegistrationOpen + ", allowAnonymousRegistration="
                + allowAnonymousRegistration + ", registrationTokens=" + registrationTokens.size() + " configured"
                + ", clientSecretTtl=" + clientSecretTtl + ", loginPage=" + loginPage.orElse("(built-in)")
                + ", consentPage=" + consentPage.orElse("(built-in)") + ", keyEncryptionKey="
                + (keyEncryptionKey.isPresent() ? "****" : "(unset)") + ", keyRotation=" + keyRotation
                + ", resources=" + resources + ", allowedOrigins=" + allowedOrigins + ", agentTokenTtl=" + agentTokenTtl
                + ", deviceCodeTtl=" + deviceCodeTtl + ", devicePollInterval=" + devicePollInterval
                + ", clientMetadataPorts=" + clientMetadataPorts + "]";
    }

    /** Reads node {@code warden.oauth}; missing keys keep the defaults. */
    public static OAuthConfig from(Config node) {
        Builder b = builder();
        node.get("issuer").asString().filter(s -> !s.isBlank()).ifPresent(b::issuer);
        node.get("access-token-ttl-seconds").asLong().ifPresent(v -> b.accessTokenTtl = Duration.ofSeconds(v));
        node.get("refresh-token-ttl-seconds").asLong().ifPresent(v -> b.refreshTokenTtl = Duration.ofSeconds(v));
        node.get("grant-max-lifetime-seconds").asLong().ifPresent(v -> b.grantMaxLifetime = Duration.ofSeconds(v));
        node.get("code-ttl-seconds").asLong().ifPresent(v -> b.codeTtl = Duration.ofSeconds(v));
        node.get("mcp-registration-open").asBoolean().ifPresent(v -> b.mcpRegistrationOpen = v);
        node.get("allow-anonymous-registration").asBoolean().ifPresent(v -> b.allowAnonymousRegistration = v);
        b.registrationTokens = stringsOf(node.get("registration-tokens"));
        node.get("client-secret-ttl-seconds").asLong().ifPresent(v -> b.clientSecretTtl = Duration.ofSeconds(v));
        node.get("login-page").asString().filter(s -> !s.isBlank()).ifPresent(v -> b.loginPage = Optional.of(v));
        node.get("consent-page").asString().filter(s -> !s.isBlank()).ifPresent(v -> b.consentPage = Optional.of(v));
        node.get("key-encryption-key")
                .asString()
                .filter(s -> !s.isBlank())
                .ifPresent(v -> b.keyEncryptionKey = Optional.of(v));
        node.get("key-rotation-days").asLong().ifPresent(v -> b.keyRotation = Duration.ofDays(v));
        node.get("agent-access-token-ttl-seconds").asLong().ifPresent(v -> b.agentTokenTtl = Duration.ofSeconds(v));
        node.get("device-code-ttl-seconds").asLong().ifPresent(v -> b.deviceCodeTtl = Duration.ofSeconds(v));
        node.get("device-poll-interval-seconds").asLong().ifPresent(v -> b.devicePollInterval = Duration.ofSeconds(v));
        node.get("allowed-origins").asString().ifPresent(v -> b.allowedOrigins = commaList(v));
        List<String> ports = stringsOf(node.get("client-metadata-document-ports"));
        if (!ports.isEmpty()) {
            b.clientMetadataPorts = ports.stream()
                    .map(p -> {
                        try {
                            return Integer.valueOf(p);
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException(
                                    "warden.oauth.client-metadata-document-ports: " + p + " is not a port");
                        }
                    })
                    .toList();
        }
        List<Resource> resources = new ArrayList<>();
        node.get("resources")
                .asNodeList()
                .ifPresent(list -> list.forEach(r -> resources.add(new Resource(
                        r.get("uri")
                                .asString()
                                .orElseThrow(() -> new IllegalArgumentException(
                                        "warden.oauth.resources: every resource needs a uri")),
                        stringsOf(r.get("scopes")),
                        stringsOf(r.get("introspection-clients"))))));
        if (!resources.isEmpty()) {
            b.resources = resources;
        }
        return b.build();
    }

    /** A YAML list of strings, or one comma- or space-separated string (environment variables). */
    private static List<String> stringsOf(Config node) {
        if (node.isList()) {
            return node.asList(String.class).orElse(List.of()).stream()
                    .map(String::strip)
                    .filter(s -> !s.isEmpty())
                    .toList();
        }
        return node.asString().map(OAuthConfig::commaList).orElse(List.of());
    }

    private static List<String> commaList(String value) {
        return Arrays.stream(value.split("[,\\s]+"))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Holds every default. */
    public static final class Builder {
        private Optional<String> issuer = Optional.empty();
        private Duration accessTokenTtl = Duration.ofHours(1);
        private Duration refreshTokenTtl = Duration.ofDays(30);
        private Duration grantMaxLifetime = Duration.ofDays(90);
        private Duration codeTtl = Duration.ofSeconds(60);
        private boolean mcpRegistrationOpen = true;
        private boolean allowAnonymousRegistration = false;
        private List<String> registrationTokens = List.of();
        private Duration clientSecretTtl = Duration.ZERO;
        private Optional<String> loginPage = Optional.empty();
        private Optional<String> consentPage = Optional.empty();
        private Optional<String> keyEncryptionKey = Optional.empty();
        private Duration keyRotation = Duration.ofDays(30);
        private List<Resource> resources = List.of();
        private List<String> allowedOrigins = List.of();
        private Duration agentTokenTtl = Duration.ofMinutes(5);
        private Duration deviceCodeTtl = Duration.ofMinutes(10);
        private Duration devicePollInterval = Duration.ofSeconds(5);
        private List<Integer> clientMetadataPorts = List.of(443);
        private Optional<SSLContext> outboundTls = Optional.empty();
        private List<TokenGrant> extraGrants = List.of();

        private Builder() {}

        public Builder issuer(String issuer) {
            this.issuer = Optional.of(issuer);
            return this;
        }

        public Builder accessTokenTtl(Duration ttl) {
            this.accessTokenTtl = ttl;
            return this;
        }

        public Builder refreshTokenTtl(Duration ttl) {
            this.refreshTokenTtl = ttl;
            return this;
        }

        public Builder codeTtl(Duration ttl) {
            this.codeTtl = ttl;
            return this;
        }

        public Builder mcpRegistrationOpen(boolean open) {
            this.mcpRegistrationOpen = open;
            return this;
        }

        public Builder allowAnonymousRegistration(boolean allow) {
            this.allowAnonymousRegistration = allow;
            return this;
        }

        public Builder registrationTokens(List<String> tokens) {
            this.registrationTokens = List.copyOf(tokens);
            return this;
        }

        public Builder keyEncryptionKey(String base64) {
            this.keyEncryptionKey = Optional.of(base64);
            return this;
        }

        public Builder keyRotation(Duration rotation) {
            this.keyRotation = rotation;
            return this;
        }

        public Builder resources(List<Resource> resources) {
            this.resources = List.copyOf(resources);
            return this;
        }

        public Builder agentTokenTtl(Duration ttl) {
            this.agentTokenTtl = ttl;
            return this;
        }

        public Builder devicePollInterval(Duration interval) {
            this.devicePollInterval = interval;
            return this;
        }

        public Builder clientMetadataPorts(List<Integer> ports) {
            this.clientMetadataPorts = List.copyOf(ports);
            return this;
        }

        /** The TLS context for outbound fetches (tests: a trust store holding their own certificate). */
        public Builder outboundTls(SSLContext context) {
            this.outboundTls = Optional.of(context);
            return this;
        }

        /** Token grants offered besides Warden's own (an extension's; a test's). */
        public Builder extraGrants(List<TokenGrant> grants) {
            this.extraGrants = List.copyOf(grants);
            return this;
        }

        public Builder loginPage(String url) {
            this.loginPage = Optional.of(url);
            return this;
        }

        public OAuthConfig build() {
            return new OAuthConfig(
                    issuer,
                    accessTokenTtl,
                    refreshTokenTtl,
                    grantMaxLifetime,
                    codeTtl,
                    mcpRegistrationOpen,
                    allowAnonymousRegistration,
                    registrationTokens,
                    clientSecretTtl,
                    loginPage,
                    consentPage,
                    keyEncryptionKey,
                    keyRotation,
                    resources,
                    allowedOrigins,
                    agentTokenTtl,
                    deviceCodeTtl,
                    devicePollInterval,
                    clientMetadataPorts,
                    outboundTls,
                    extraGrants);
        }
    }
}
