package dev.warden.testing;

import dev.warden.api.config.WardenConfig;
import dev.warden.embedded.EmbeddedKafka;
import dev.warden.launcher.WardenPlatform;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.util.UUID;

/**
 * A Warden process on a broker of its own (the shared PostgreSQL, its own schema), for tests that stop or
 * restart the broker. {@link #close()} stops the platform, then the broker, and drops what it made.
 */
public final class OwnBrokerPlatform implements AutoCloseable {
    private final Path brokerDir = SharedInfra.worldTraversableTempDir();
    private final Path stateDir = SharedInfra.worldTraversableTempDir();
    private final String schema =
            "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final String jdbcUrl;
    private final WardenPlatform platform;
    private EmbeddedKafka kafka;
    private boolean brokerUp = true;

    /** Starts a broker and a platform running {@code roles} on it. */
    public OwnBrokerPlatform(SharedInfra infra, String roles) {
        this.jdbcUrl = infra.jdbcUrl();
        WardenConfig config = WardenConfig.builder()
                .host("127.0.0.1")
                .port(0)
                .roles(roles)
                .bootstrapToken("wdn_adm_own_" + schema)
                .pgSchema(schema)
                .pgPoolSize(5)
                .streamsApplicationPrefix(schema + "-")
                .streamsStateDir(stateDir.toString())
                .build();
        this.kafka = EmbeddedKafka.start(brokerDir);
        this.platform = WardenPlatform.start(config, kafka.bootstrap(), jdbcUrl, Clock.systemUTC());
    }

    public Http http() {
        return new Http(platform.baseUri());
    }

    public String adminToken() {
        return platform.adminToken();
    }

    /** This platform's database schema. */
    public String schema() {
        return schema;
    }

    /** Stops the broker (the platform keeps running without it). */
    public void stopBroker() {
        kafka.close();
        brokerUp = false;
    }

    /** Starts the broker again on the same ports and data. */
    public void startBroker() {
        kafka = EmbeddedKafka.start(brokerDir, kafka.brokerPort(), kafka.controllerPort());
        brokerUp = true;
    }

    @Override
    public void close() throws Exception {
        try {
            platform.close();
        } finally {
            if (brokerUp) {
                kafka.close();
            }
            try (Connection conn = DriverManager.getConnection(jdbcUrl);
                    Statement st = conn.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
            SharedInfra.deleteTree(brokerDir);
            SharedInfra.deleteTree(stateDir);
        }
    }
}
