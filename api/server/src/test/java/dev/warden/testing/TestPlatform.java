package dev.warden.testing;

import dev.warden.api.config.WardenConfig;
import dev.warden.launcher.WardenPlatform;
import dev.warden.pipeline.contract.Topics;
import java.util.Locale;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Warden process for one test class, on the shared broker and database, isolated by its own schema and
 * topic prefix. Register with {@code @RegisterExtension static final TestPlatform warden = new TestPlatform();}.
 */
public final class TestPlatform implements BeforeAllCallback, AfterAllCallback {
    private final UnaryOperator<WardenConfig.Builder> customizer;
    private final java.util.function.Supplier<dev.warden.api.observe.Tracing> tracing;
    private final MutableClock clock = MutableClock.running();
    private final String isolation =
            "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
    private final java.nio.file.Path stateDir = SharedInfra.worldTraversableTempDir();
    private SharedInfra infra;
    private WardenPlatform platform;
    private Http http;

    public TestPlatform() {
        this(UnaryOperator.identity());
    }

    /** A platform whose config the test adjusts. */
    public TestPlatform(UnaryOperator<WardenConfig.Builder> customizer) {
        this(customizer, dev.warden.api.observe.Tracing::off);
    }

    /** A platform whose config the test adjusts, recording spans with the tracing {@code tracing} gives. */
    public TestPlatform(
            UnaryOperator<WardenConfig.Builder> customizer,
            java.util.function.Supplier<dev.warden.api.observe.Tracing> tracing) {
        this.customizer = customizer;
        this.tracing = tracing;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        infra = SharedInfra.get(context);
        platform = WardenPlatform.start(config(), infra.kafkaBootstrap(), infra.jdbcUrl(), clock, tracing.get());
        http = new Http(platform.baseUri());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (platform != null) {
            platform.close();
        }
        dropSchema();
        SharedInfra.deleteTree(stateDir);
    }

    /**
     * Runs {@code sql} with {@code args} in this platform's schema: for fixtures the API cannot make (a passkey needs
     * an authenticator). Returns the update count.
     */
    public int execute(String sql, Object... args) {
        try (java.sql.Connection conn = java.sql.DriverManager.getConnection(infra.jdbcUrl())) {
            conn.setSchema(isolation);
            try (java.sql.PreparedStatement ps = conn.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                return ps.executeUpdate();
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not run a fixture statement", e);
        }
    }

    private void dropSchema() {
        try (java.sql.Connection conn = java.sql.DriverManager.getConnection(infra.jdbcUrl());
                java.sql.Statement st = conn.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + isolation + " CASCADE");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not drop test schema " + isolation, e);
        }
    }

    /** This platform's config: port 0, own schema, own topics, a fixed admin token. */
    public WardenConfig config() {
        return customizer
                .apply(WardenConfig.builder()
                        .host("127.0.0.1")
                        .port(0)
                        .instanceId("it-" + isolation)
                        .bootstrapToken("wdn_adm_test_" + isolation)
                        .pgSchema(isolation)
                        .pgPoolSize(5)
                        .streamsApplicationPrefix(isolation + "-")
                        .streamsStateDir(stateDir.toString())
                        .topics(Topics.defaults().withPrefix(isolation + ".")))
                .build();
    }

    /**
     * Another instance of this deployment (same broker, database, topics and schema; its own instance id, ending in
     * {@code -suffix}); the caller closes it.
     */
    public WardenPlatform startAnother(String suffix) {
        return startAnother(suffix, UnaryOperator.identity());
    }

    /** As {@link #startAnother(String)}, with {@code adjust} applied to the config (e.g. the API role only). */
    public WardenPlatform startAnother(String suffix, UnaryOperator<WardenConfig.Builder> adjust) {
        WardenConfig config = config();
        return WardenPlatform.start(
                adjust.apply(config.toBuilder().instanceId(config.instanceId() + "-" + suffix))
                        .build(),
                infra.kafkaBootstrap(),
                infra.jdbcUrl(),
                clock);
    }

    public Http http() {
        return http;
    }

    /** The platform's credential chain. */
    public dev.warden.api.auth.Authenticator authenticator() {
        return platform.authenticator();
    }

    /** Every route the platform serves, with its declared access. */
    public java.util.List<dev.warden.api.access.RouteTable.Route> routes() {
        return platform.routes();
    }

    public String adminToken() {
        return platform.adminToken();
    }

    /** A new API token (all of a user's scopes) of user {@code userId}, made by the administrator. */
    public String apiToken(String userId) {
        Http.Response res =
                http.post("/auth/tokens", adminToken(), "{\"name\":\"laptop\",\"userId\":\"" + userId + "\"}");
        if (res.status() != 201) {
            throw new AssertionError("POST /auth/tokens answered " + res.status() + ": " + res.body());
        }
        return res.json().get("token").asText();
    }

    /** The first-run setup token this platform printed at start, if it printed one. */
    public java.util.Optional<String> setupToken() {
        return platform.setupToken();
    }

    public MutableClock clock() {
        return clock;
    }

    public SharedInfra infra() {
        return infra;
    }

    public Topics topics() {
        return config().kafka().topics();
    }
}
