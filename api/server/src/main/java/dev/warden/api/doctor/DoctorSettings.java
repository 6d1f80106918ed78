package dev.warden.api.doctor;

import dev.warden.api.config.Role;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.ratelimit.StoreKind;
import dev.warden.api.users.UsersConfig;
import java.time.Duration;

/**
 * What the security doctor reads of the configuration: facts, never secrets. The bootstrap token is present
 * only as its {@link BootstrapTokenVerdict}, judged once by {@link #from(WardenConfig)}; of the encryption keys
 * only whether they are set.
 *
 * @param instanceId            {@code warden.instance-id}, the name of this process in the heartbeat
 * @param roles                 the roles this process runs, as comma-separated wire names
 * @param dev                   whether this is a dev deployment (see {@link #isDev(WardenConfig)})
 * @param bootstrapToken        the verdict on {@code warden.bootstrap.token}
 * @param anonymousRegistration {@code warden.oauth.allow-anonymous-registration}
 * @param mcpRegistrationOpen   {@code warden.oauth.mcp-registration-open}
 * @param issuerConfigured      whether {@code warden.oauth.issuer} is set (else it is derived from the listener)
 * @param password              {@code warden.users.password}: the Argon2id cost
 * @param keyRotation           {@code warden.oauth.key-rotation-days}
 * @param replicationFactor     {@code warden.kafka.topics.replication-factor}
 * @param webhookKeyConfigured  whether {@code warden.webhooks.encryption-key} is set
 * @param rateLimitStore        {@code warden.rate-limit.store}
 * @param bootstrapEnabled      {@code warden.bootstrap.enabled}
 */
public record DoctorSettings(
        String instanceId,
        String roles,
        boolean dev,
        BootstrapTokenVerdict bootstrapToken,
        boolean bootstrapEnabled,
        boolean anonymousRegistration,
        boolean mcpRegistrationOpen,
        boolean issuerConfigured,
        UsersConfig.PasswordRules password,
        Duration keyRotation,
        short replicationFactor,
        boolean webhookKeyConfigured,
        StoreKind rateLimitStore) {

    /** The doctor's view of {@code config}; judges the bootstrap token here, once. */
    public static DoctorSettings from(WardenConfig config) {
        return new DoctorSettings(
                config.instanceId(),
                String.join(
                        ",",
                        config.roles().stream().map(Role::wireName).sorted().toList()),
                isDev(config),
                BootstrapTokenVerdict.of(config.bootstrapToken()),
                config.bootstrapEnabled(),
                config.oauth().allowAnonymousRegistration(),
                config.oauth().mcpRegistrationOpen(),
                config.oauth().issuer().isPresent(),
                config.users().password(),
                config.oauth().keyRotation(),
                config.kafka().topics().replicationFactor(),
                config.webhooks().encryptionKey().isPresent(),
                config.rateLimit().store());
    }

    /**
     * Whether {@code config} is a dev deployment: it names no external Kafka or no external PostgreSQL, so the
     * process runs on the embedded broker or database. Only {@code warden dev} (the developer distribution) and
     * the tests do that: {@code warden serve}, what the production image runs, refuses to start without both.
     */
    public static boolean isDev(WardenConfig config) {
        return config.kafka().bootstrap().isEmpty() || config.postgres().url().isEmpty();
    }
}
