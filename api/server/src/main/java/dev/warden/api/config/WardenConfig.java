package dev.warden.api.config;

import dev.warden.api.oauth.OAuthConfig;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.users.mail.MailConfig;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.pipeline.contract.Topics;
import dev.warden.pipeline.contract.WireEnum;
import dev.warden.runtime.db.Database;
import dev.warden.sinks.external.AuditSinkSpec;
import io.helidon.config.Config;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Everything a Warden process is configured with. Built from Helidon {@link Config} (node {@code warden},
 * kebab-case keys) by {@link #from(Config)}, or in code with {@link #builder()}, which holds every default.
 * {@link #toString()} masks secrets.
 */
public record WardenConfig(
        Set<Role> roles,
        String instanceId,
        Server server,
        Optional<String> bootstrapToken,
        boolean bootstrapEnabled,
        Kafka kafka,
        Postgres postgres,
        String redisUrl,
        Streams streams,
        EventStreamSettings eventStream,
        UsersConfig users,
        RateLimitConfig rateLimit,
        WebhooksConfig webhooks,
        List<AuditSinkSpec> auditSinks,
        OAuthConfig oauth,
        Log log,
        boolean tracing,
        MailConfig mail) {

    public WardenConfig {
        auditSinks = List.copyOf(auditSinks);
        roles = Set.copyOf(roles);
        if (roles.isEmpty()) {
            throw new IllegalArgumentException("warden.roles must name at least one role");
        }
    }

    /**
     * Logs: {@code format} {@code text} (default) or {@code json} (keys {@code warden.log.format}); {@code access}
     * writes one access-log record per request (key {@code warden.log.access}, default false).
     */
    public record Log(String format, boolean access) {
        public Log {
            if (!format.equals("text") && !format.equals("json")) {
                throw new IllegalArgumentException("warden.log.format must be text or json");
            }
        }
    }

    /**
     * HTTP listener settings; {@code accountRoutes} mounts {@code /account/agents} and {@code /account/delegations}
     * (key {@code warden.server.account-routes}, default false).
     */
    public record Server(String host, int port, long maxBodyBytes, boolean accountRoutes) {
        public Server {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("warden.server.port must be 0..65535");
            }
            if (maxBodyBytes < 1024) {
                throw new IllegalArgumentException("warden.server.max-body-bytes must be at least 1024");
            }
        }
    }

    /** Kafka connection and topic layout; {@code bootstrap} empty means "start the embedded broker". */
    public record Kafka(Optional<String> bootstrap, Topics topics) {}

    /**
     * Kafka Streams settings of the quota and pipeline roles.
     *
     * @param applicationPrefix prefix of every Streams application id ({@code <prefix>quota})
     * @param stateDir          local state directory (RocksDB stores, restored from changelogs)
     * @param commitIntervalMs  the quota application's commit interval; a poll's replies do not wait for it (the last
     *                          one asks for the commit, D193)
     * @param pipelineCommitIntervalMs the pipeline role's commit interval: with exactly-once it bounds how long a
     *                          budget or anomaly event (and every event after it) waits before SSE readers see it
     * @param mirrorCommitIntervalMs the audit mirror's commit interval: with exactly-once it bounds how long an
     *                          {@code audit} stream event (and every event after it) waits before SSE readers see it
     * @param backgroundFetchWaitMs {@code fetch.max.wait.ms} of the consumers whose latency nobody waits on (the
     *                          stream store, whose lag the SSE ring covers; webhooks; the Shared Signals feeder; the
     *                          pipeline's aggregates): the most a record waits for their batch to fill, and how often
     *                          each asks the broker while idle. 0 (the default) means
     *                          {@value #DEFAULT_BACKGROUND_FETCH_WAIT_MS} ms, or {@value #DEV_BACKGROUND_FETCH_WAIT_MS} ms
     *                          in {@code warden dev}
     * @param groupRetryBackoffMs {@code retry.backoff.ms} of the consumers in a group (the sink workers, webhooks,
     *                          both Streams applications): how soon a failed request is retried, and how often each
     *                          one's heartbeat thread wakes to see whether a heartbeat is due. 0 (the default) means
     *                          Kafka's {@value #DEFAULT_GROUP_RETRY_BACKOFF_MS} ms, or
     *                          {@value #DEV_GROUP_RETRY_BACKOFF_MS} ms in {@code warden dev}
     * @param groupHeartbeatIntervalMs {@code heartbeat.interval.ms} of the same consumers: how often each tells the
     *                          group coordinator it is alive, and so how soon it learns of a rebalance. 0 (the default)
     *                          means Kafka's {@value #DEFAULT_GROUP_HEARTBEAT_INTERVAL_MS} ms, or
     *                          {@value #DEV_GROUP_HEARTBEAT_INTERVAL_MS} ms in {@code warden dev}; at most
     *                          {@value #MAX_GROUP_HEARTBEAT_INTERVAL_MS} ms, a third of the session timeout (45 s)
     */
    public record Streams(
            String applicationPrefix,
            String stateDir,
            long commitIntervalMs,
            long pipelineCommitIntervalMs,
            long mirrorCommitIntervalMs,
            long backgroundFetchWaitMs,
            long groupRetryBackoffMs,
            long groupHeartbeatIntervalMs) {
        /** {@code warden.streams.background-fetch-wait-ms} when it is not set, outside {@code warden dev}. */
        public static final long DEFAULT_BACKGROUND_FETCH_WAIT_MS = 100;
        /** {@code warden.streams.background-fetch-wait-ms} when it is not set, in {@code warden dev}. */
        public static final long DEV_BACKGROUND_FETCH_WAIT_MS = 1_000;

        /** The background consumers' {@code fetch.max.wait.ms}, the default applied. */
        public Duration backgroundFetchWait() {
            return Duration.ofMillis(
                    backgroundFetchWaitMs > 0 ? backgroundFetchWaitMs : DEFAULT_BACKGROUND_FETCH_WAIT_MS);
        }

        /** The quota application's {@code fetch.max.wait.ms} unless the background wait is longer. */
        public static final long QUOTA_FETCH_WAIT_MS = 500;

        /**
         * The quota application's {@code fetch.max.wait.ms}: {@value #QUOTA_FETCH_WAIT_MS} ms, or the background wait
         * when it is longer (1 s in {@code warden dev}). A request ends the fetch at once, so the wait costs no
         * latency; it sets how often an idle instance asks, and how long a stop waits for the fetch the broker holds.
         */
        public Duration quotaFetchWait() {
            Duration background = backgroundFetchWait();
            return background.toMillis() > QUOTA_FETCH_WAIT_MS ? background : Duration.ofMillis(QUOTA_FETCH_WAIT_MS);
        }

        /** {@code warden.streams.group-retry-backoff-ms} when it is not set, outside {@code warden dev}: Kafka's. */
        public static final long DEFAULT_GROUP_RETRY_BACKOFF_MS = 100;
        /** {@code warden.streams.group-retry-backoff-ms} when it is not set, in {@code warden dev}. */
        public static final long DEV_GROUP_RETRY_BACKOFF_MS = 1_000;

        /** The group consumers' {@code retry.backoff.ms}, the default applied. */
        public Duration groupRetryBackoff() {
            return Duration.ofMillis(groupRetryBackoffMs > 0 ? groupRetryBackoffMs : DEFAULT_GROUP_RETRY_BACKOFF_MS);
        }

        /** {@code warden.streams.group-heartbeat-interval-ms} when it is not set, outside {@code warden dev}: Kafka's. */
        public static final long DEFAULT_GROUP_HEARTBEAT_INTERVAL_MS = 3_000;
        /** {@code warden.streams.group-heartbeat-interval-ms} when it is not set, in {@code warden dev}. */
        public static final long DEV_GROUP_HEARTBEAT_INTERVAL_MS = 10_000;
        /** The longest {@code warden.streams.group-heartbeat-interval-ms}: a third of the session timeout. */
        public static final long MAX_GROUP_HEARTBEAT_INTERVAL_MS = 15_000;

        /** The group consumers' {@code heartbeat.interval.ms}, the default applied. */
        public Duration groupHeartbeatInterval() {
            return Duration.ofMillis(
                    groupHeartbeatIntervalMs > 0 ? groupHeartbeatIntervalMs : DEFAULT_GROUP_HEARTBEAT_INTERVAL_MS);
        }
    }

    /**
     * The SSE stream and its replay store.
     *
     * @param maxConnections      concurrent SSE connections per instance before 503
     * @param heartbeatIntervalMs interval of {@code : heartbeat} comments
     * @param retentionDays       how long persisted stream events are kept for replay
     * @param mirrorAudit         whether every audit entry is also published as an {@code audit} stream event
     * @param maxPerSubscriber    connections one token holder may hold; 0 means a tenth of {@code maxConnections}
     * @param adminReserve        connections kept for the administrator beyond {@code maxConnections}
     */
    public record EventStreamSettings(
            int maxConnections,
            long heartbeatIntervalMs,
            int retentionDays,
            boolean mirrorAudit,
            int maxPerSubscriber,
            int adminReserve) {}

    /** PostgreSQL connection; {@code url} empty means "start the embedded server". */
    public record Postgres(
            Optional<String> url,
            Optional<String> user,
            Optional<String> password,
            int poolSize,
            Optional<String> schema) {
        @Override
        public String toString() {
            return "Postgres[url=" + url.orElse("(embedded)") + ", user=" + user.orElse("") + ", password="
                    + (password.isPresent() ? "****" : "") + ", poolSize=" + poolSize + ", schema="
                    + schema.orElse("") + "]";
        }

        /** What the connection pool needs of this block. */
        public Database.PoolSettings pool() {
            return new Database.PoolSettings(user, password, poolSize, schema);
        }
    }

    @Override
    public String toString() {
        return "WardenConfig[roles=" + roles + ", instanceId=" + instanceId + ", server=" + server
                + ", bootstrapToken=" + (!bootstrapEnabled ? "(off)" : bootstrapToken.isPresent() ? "****" : "(random)")
                + ", kafka=" + kafka
                + ", postgres=" + postgres + ", redisUrl=" + redisUrl + ", streams=" + streams + ", eventStream="
                + eventStream
                + ", users=" + users + ", rateLimit=" + rateLimit + ", webhooks=" + webhooks + ", auditSinks="
                + auditSinks + ", oauth=" + oauth + ", mail=" + mail + "]";
    }

    /** True when this process runs {@code role}. */
    public boolean runs(Role role) {
        return roles.contains(role);
    }

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder preset with this config's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.roles = EnumSet.copyOf(roles);
        b.instanceId = instanceId;
        b.host = server.host();
        b.port = server.port();
        b.maxBodyBytes = server.maxBodyBytes();
        b.accountRoutes = server.accountRoutes();
        b.bootstrapToken = bootstrapToken;
        b.bootstrapEnabled = bootstrapEnabled;
        b.kafkaBootstrap = kafka.bootstrap();
        b.topics = kafka.topics();
        b.pgUrl = postgres.url();
        b.pgUser = postgres.user();
        b.pgPassword = postgres.password();
        b.pgPoolSize = postgres.poolSize();
        b.pgSchema = postgres.schema();
        b.redisUrl = redisUrl;
        b.streamsPrefix = streams.applicationPrefix();
        b.streamsStateDir = streams.stateDir();
        b.streamsCommitIntervalMs = streams.commitIntervalMs();
        b.pipelineCommitIntervalMs = streams.pipelineCommitIntervalMs();
        b.mirrorCommitIntervalMs = streams.mirrorCommitIntervalMs();
        b.backgroundFetchWaitMs = streams.backgroundFetchWaitMs();
        b.groupRetryBackoffMs = streams.groupRetryBackoffMs();
        b.groupHeartbeatIntervalMs = streams.groupHeartbeatIntervalMs();
        b.sseMaxConnections = eventStream.maxConnections();
        b.sseHeartbeatMs = eventStream.heartbeatIntervalMs();
        b.eventRetentionDays = eventStream.retentionDays();
        b.mirrorAudit = eventStream.mirrorAudit();
        b.sseMaxPerSubscriber = eventStream.maxPerSubscriber();
        b.sseAdminReserve = eventStream.adminReserve();
        b.users = users;
        b.rateLimit = rateLimit;
        b.webhooks = webhooks;
        b.auditSinks = auditSinks;
        b.oauth = oauth;
        b.logFormat = log.format();
        b.accessLog = log.access();
        b.tracing = tracing;
        b.mail = mail;
        return b;
    }

    /**
     * Reads node {@code warden} of {@code root}; every missing key keeps the builder's default.
     *
     * @throws IllegalArgumentException naming the key of a bad value
     */
    public static WardenConfig from(Config root) {
        Config c = root.get("warden");
        Builder b = builder();
        c.get("roles").asString().ifPresent(b::roles);
        c.get("instance-id").asString().ifPresent(b::instanceId);
        c.get("server.host").asString().ifPresent(b::host);
        c.get("server.port").asInt().ifPresent(b::port);
        c.get("server.max-body-bytes").asLong().ifPresent(b::maxBodyBytes);
        c.get("server.account-routes").asBoolean().ifPresent(b::accountRoutes);
        c.get("log.format").asString().filter(s -> !s.isBlank()).ifPresent(b::logFormat);
        c.get("log.access").asBoolean().ifPresent(b::accessLog);
        c.get("tracing.enabled").asBoolean().ifPresent(b::tracing);
        c.get("bootstrap.token").asString().filter(s -> !s.isBlank()).ifPresent(b::bootstrapToken);
        c.get("bootstrap.enabled").asBoolean().ifPresent(b::bootstrapEnabled);
        c.get("kafka.bootstrap").asString().filter(s -> !s.isBlank()).ifPresent(b::kafkaBootstrap);
        Topics topics = Topics.defaults();
        String prefix = c.get("kafka.topic-prefix").asString().orElse("");
        b.topics(new Topics(
                prefix + c.get("kafka.topics.audit").asString().orElse(topics.audit()),
                c.get("kafka.topics.audit-partitions").asInt().orElse(topics.auditPartitions()),
                prefix + c.get("kafka.topics.events").asString().orElse(topics.events()),
                prefix + c.get("kafka.topics.quota-requests").asString().orElse(topics.quotaRequests()),
                prefix + c.get("kafka.topics.quota-replies").asString().orElse(topics.quotaReplies()),
                c.get("kafka.topics.quota-partitions").asInt().orElse(topics.quotaPartitions()),
                c.get("kafka.topics.replication-factor")
                        .asInt()
                        .map(Integer::shortValue)
                        .orElse(topics.replicationFactor()),
                prefix + c.get("kafka.topics.dashboard-hourly").asString().orElse(topics.dashboardHourly()),
                prefix + c.get("kafka.topics.dashboard-totals").asString().orElse(topics.dashboardTotals()),
                prefix + c.get("kafka.topics.budget-spend").asString().orElse(topics.budgetSpend())));
        c.get("pg.url").asString().filter(s -> !s.isBlank()).ifPresent(b::pgUrl);
        c.get("pg.user").asString().filter(s -> !s.isBlank()).ifPresent(b::pgUser);
        c.get("pg.password").asString().ifPresent(b::pgPassword);
        c.get("pg.pool-size").asInt().ifPresent(b::pgPoolSize);
        c.get("pg.schema").asString().filter(s -> !s.isBlank()).ifPresent(b::pgSchema);
        c.get("redis.url").asString().filter(s -> !s.isBlank()).ifPresent(b::redisUrl);
        c.get("streams.application-prefix").asString().ifPresent(b::streamsApplicationPrefix);
        c.get("streams.state-dir").asString().filter(s -> !s.isBlank()).ifPresent(b::streamsStateDir);
        c.get("streams.commit-interval-ms").asLong().ifPresent(b::streamsCommitIntervalMs);
        c.get("streams.pipeline-commit-interval-ms").asLong().ifPresent(b::pipelineCommitIntervalMs);
        c.get("streams.mirror-commit-interval-ms").asLong().ifPresent(b::mirrorCommitIntervalMs);
        c.get("streams.background-fetch-wait-ms").asLong().ifPresent(b::backgroundFetchWaitMs);
        c.get("streams.group-retry-backoff-ms").asLong().ifPresent(b::groupRetryBackoffMs);
        c.get("streams.group-heartbeat-interval-ms").asLong().ifPresent(b::groupHeartbeatIntervalMs);
        c.get("events.max-connections").asInt().ifPresent(b::sseMaxConnections);
        c.get("events.heartbeat-interval-ms").asLong().ifPresent(b::sseHeartbeatMs);
        c.get("events.retention-days").asInt().ifPresent(b::eventRetentionDays);
        c.get("events.mirror-audit").asBoolean().ifPresent(b::mirrorAudit);
        c.get("events.max-connections-per-subscriber").asInt().ifPresent(b::sseMaxPerSubscriber);
        c.get("events.admin-reserved-connections").asInt().ifPresent(b::sseAdminReserve);
        b.users(UsersConfig.from(c.get("users")));
        b.mail(MailConfig.from(c.get("mail")));
        b.rateLimit(RateLimitConfig.from(c.get("rate-limit")));
        b.webhooks(WebhooksConfig.from(c.get("webhooks")));
        b.auditSinks(AuditSinkSpecs.from(c.get("sinks.audit")));
        b.oauth(OAuthConfig.from(c.get("oauth")));
        return b.build();
    }

    /** Mutable builder; every field starts at its documented default. */
    public static final class Builder {
        private Set<Role> roles = EnumSet.allOf(Role.class);
        private String instanceId = "warden-" + UUID.randomUUID().toString().substring(0, 8);
        private String host = "0.0.0.0";
        private int port = 8080;
        private long maxBodyBytes = 1024 * 1024;
        private boolean accountRoutes;
        private String logFormat = "text";
        private boolean accessLog;
        private boolean tracing;
        private Optional<String> bootstrapToken = Optional.empty();
        private boolean bootstrapEnabled = true;
        private Optional<String> kafkaBootstrap = Optional.empty();
        private Topics topics = Topics.defaults();
        private Optional<String> pgUrl = Optional.empty();
        private Optional<String> pgUser = Optional.empty();
        private Optional<String> pgPassword = Optional.empty();
        private int pgPoolSize = 10;
        private Optional<String> pgSchema = Optional.empty();
        private String redisUrl = "redis://127.0.0.1:6379";
        private String streamsPrefix = "warden-";
        private String streamsStateDir = System.getProperty("java.io.tmpdir") + "/warden-streams";
        private long streamsCommitIntervalMs = 20;
        private long pipelineCommitIntervalMs = 100;
        private long mirrorCommitIntervalMs = 20;
        private long backgroundFetchWaitMs;
        private long groupRetryBackoffMs;
        private long groupHeartbeatIntervalMs;
        private int sseMaxConnections = 100;
        private long sseHeartbeatMs = 30_000;
        private int eventRetentionDays = 7;
        private boolean mirrorAudit = true;
        private int sseMaxPerSubscriber;
        private int sseAdminReserve = 5;
        private UsersConfig users = UsersConfig.builder().build();
        private RateLimitConfig rateLimit = RateLimitConfig.builder().build();
        private WebhooksConfig webhooks = WebhooksConfig.builder().build();
        private OAuthConfig oauth = OAuthConfig.builder().build();
        private List<AuditSinkSpec> auditSinks = List.of();
        private MailConfig mail = MailConfig.none();

        private Builder() {}

        /** Roles from a comma list such as {@code api,quota}; unknown names are an error. */
        public Builder roles(String commaList) {
            Set<Role> parsed = EnumSet.noneOf(Role.class);
            for (String name : commaList.split(",")) {
                String trimmed = name.strip().toLowerCase(Locale.ROOT);
                if (trimmed.isEmpty()) {
                    continue;
                }
                parsed.add(WireEnum.parse(Role.class, trimmed)
                        .orElseThrow(() -> new IllegalArgumentException("warden.roles: unknown role '" + trimmed
                                + "'; choose from " + WireEnum.choices(Role.class))));
            }
            return roles(parsed);
        }

        public Builder roles(Set<Role> roles) {
            this.roles = EnumSet.noneOf(Role.class);
            this.roles.addAll(roles);
            return this;
        }

        public Builder instanceId(String instanceId) {
            this.instanceId = instanceId;
            return this;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder maxBodyBytes(long maxBodyBytes) {
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        public Builder bootstrapToken(String token) {
            this.bootstrapToken = Optional.of(token);
            return this;
        }

        /**
         * Whether the bootstrap administrator token works at all (key {@code warden.bootstrap.enabled}, default true):
         * turn it off once an administrator who is a person exists.
         */
        public Builder bootstrapEnabled(boolean enabled) {
            this.bootstrapEnabled = enabled;
            return this;
        }

        public Builder kafkaBootstrap(String bootstrap) {
            this.kafkaBootstrap = Optional.of(bootstrap);
            return this;
        }

        public Builder topics(Topics topics) {
            this.topics = topics;
            return this;
        }

        public Builder pgUrl(String url) {
            this.pgUrl = Optional.of(url);
            return this;
        }

        public Builder pgUser(String user) {
            this.pgUser = Optional.of(user);
            return this;
        }

        public Builder pgPassword(String password) {
            this.pgPassword = Optional.of(password);
            return this;
        }

        public Builder pgPoolSize(int size) {
            this.pgPoolSize = size;
            return this;
        }

        public Builder pgSchema(String schema) {
            this.pgSchema = Optional.of(schema);
            return this;
        }

        public Builder redisUrl(String url) {
            this.redisUrl = url;
            return this;
        }

        /** {@code text} or {@code json} (one JSON object per line). */
        public Builder logFormat(String format) {
            this.logFormat = format;
            return this;
        }

        /**
         * Whether spans are recorded and exported with OpenTelemetry ({@code warden.tracing.enabled}, default
         * false; the exporter is configured by the standard {@code OTEL_*} variables).
         */
        public Builder tracing(boolean enabled) {
            this.tracing = enabled;
            return this;
        }

        /** Whether each request writes an access-log record (logger {@code warden.access}). */
        public Builder accessLog(boolean enabled) {
            this.accessLog = enabled;
            return this;
        }

        /** Whether the signed-in user's account routes ({@code /account/*}) are mounted (default false). */
        public Builder accountRoutes(boolean mounted) {
            this.accountRoutes = mounted;
            return this;
        }

        public Builder streamsApplicationPrefix(String prefix) {
            this.streamsPrefix = prefix;
            return this;
        }

        public Builder streamsStateDir(String dir) {
            this.streamsStateDir = dir;
            return this;
        }

        public Builder pipelineCommitIntervalMs(long millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("warden.streams.pipeline-commit-interval-ms must be at least 1");
            }
            this.pipelineCommitIntervalMs = millis;
            return this;
        }

        public Builder mirrorCommitIntervalMs(long millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("warden.streams.mirror-commit-interval-ms must be at least 1");
            }
            this.mirrorCommitIntervalMs = millis;
            return this;
        }

        /** {@code warden.streams.background-fetch-wait-ms}: 0 for the default ({@link Streams#backgroundFetchWaitMs}). */
        public Builder backgroundFetchWaitMs(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("warden.streams.background-fetch-wait-ms must not be negative");
            }
            this.backgroundFetchWaitMs = millis;
            return this;
        }

        /** {@code warden.streams.group-retry-backoff-ms}: 0 for the default ({@link Streams#groupRetryBackoffMs}). */
        public Builder groupRetryBackoffMs(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("warden.streams.group-retry-backoff-ms must not be negative");
            }
            this.groupRetryBackoffMs = millis;
            return this;
        }

        /**
         * {@code warden.streams.group-heartbeat-interval-ms}: 0 for the default
         * ({@link Streams#groupHeartbeatIntervalMs}).
         */
        public Builder groupHeartbeatIntervalMs(long millis) {
            if (millis < 0 || millis > Streams.MAX_GROUP_HEARTBEAT_INTERVAL_MS) {
                throw new IllegalArgumentException("warden.streams.group-heartbeat-interval-ms must be between 0 and "
                        + Streams.MAX_GROUP_HEARTBEAT_INTERVAL_MS);
            }
            this.groupHeartbeatIntervalMs = millis;
            return this;
        }

        public Builder streamsCommitIntervalMs(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("warden.streams.commit-interval-ms must not be negative");
            }
            this.streamsCommitIntervalMs = millis;
            return this;
        }

        public Builder sseMaxConnections(int n) {
            this.sseMaxConnections = n;
            return this;
        }

        /** Connections one token holder may hold on the stream; 0 (default) means a tenth of the cap. */
        public Builder sseMaxPerSubscriber(int n) {
            this.sseMaxPerSubscriber = n;
            return this;
        }

        /** Stream connections kept for the administrator beyond the cap (default 5). */
        public Builder sseAdminReserve(int n) {
            this.sseAdminReserve = n;
            return this;
        }

        public Builder sseHeartbeatMs(long millis) {
            this.sseHeartbeatMs = millis;
            return this;
        }

        /**
         * Whether the audit writer publishes every audit entry it stores as an {@code audit} stream event (default
         * true).
         */
        public Builder mirrorAudit(boolean mirror) {
            this.mirrorAudit = mirror;
            return this;
        }

        public Builder eventRetentionDays(int days) {
            this.eventRetentionDays = days;
            return this;
        }

        /** Node {@code warden.sinks.audit}: external audit sinks (docs/audit-sinks.md). */
        public Builder auditSinks(List<AuditSinkSpec> sinks) {
            this.auditSinks = List.copyOf(sinks);
            return this;
        }

        /** Node {@code warden.mail}: the SMTP server of sign-in links, codes, verification and reset mail. */
        public Builder mail(MailConfig mail) {
            this.mail = mail;
            return this;
        }

        /** Node {@code warden.users}: username plugin, passwords, lockout, sessions. */
        public Builder users(UsersConfig users) {
            this.users = users;
            return this;
        }

        /** Node {@code warden.rate-limit}: store, trusted proxies, endpoint limits. */
        public Builder rateLimit(RateLimitConfig rateLimit) {
            this.rateLimit = rateLimit;
            return this;
        }

        /** Node {@code warden.webhooks}: SSRF guard, secret encryption key, retries and timeouts. */
        public Builder webhooks(WebhooksConfig webhooks) {
            this.webhooks = webhooks;
            return this;
        }

        public Builder oauth(OAuthConfig oauth) {
            this.oauth = oauth;
            return this;
        }

        public WardenConfig build() {
            return new WardenConfig(
                    roles,
                    instanceId,
                    new Server(host, port, maxBodyBytes, accountRoutes),
                    bootstrapToken,
                    bootstrapEnabled,
                    new Kafka(kafkaBootstrap, topics),
                    new Postgres(pgUrl, pgUser, pgPassword, pgPoolSize, pgSchema),
                    redisUrl,
                    new Streams(
                            streamsPrefix,
                            streamsStateDir,
                            streamsCommitIntervalMs,
                            pipelineCommitIntervalMs,
                            mirrorCommitIntervalMs,
                            backgroundFetchWaitMs,
                            groupRetryBackoffMs,
                            groupHeartbeatIntervalMs),
                    new EventStreamSettings(
                            sseMaxConnections,
                            sseHeartbeatMs,
                            eventRetentionDays,
                            mirrorAudit,
                            sseMaxPerSubscriber,
                            sseAdminReserve),
                    users,
                    rateLimit,
                    webhooks,
                    auditSinks,
                    oauth,
                    new Log(logFormat, accessLog),
                    tracing,
                    mail);
        }
    }
}
