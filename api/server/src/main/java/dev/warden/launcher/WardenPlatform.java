package dev.warden.launcher;

import dev.warden.api.Component;
import dev.warden.api.Resources;
import dev.warden.api.WardenApi;
import dev.warden.api.access.RouteTable;
import dev.warden.api.approvals.Approval;
import dev.warden.api.approvals.ApprovalService;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.auth.Authenticator;
import dev.warden.api.auth.CredentialRevocations;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.config.Role;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.console.ConsoleComponent;
import dev.warden.api.deadletters.DeadLetterRepository;
import dev.warden.api.doctor.Doctor;
import dev.warden.api.doctor.DoctorSettings;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.events.PublishedEvents;
import dev.warden.api.events.stream.EventStreamConfig;
import dev.warden.api.http.TakeTurns;
import dev.warden.api.kafka.KafkaClients;
import dev.warden.api.kafka.TopicProvisioner;
import dev.warden.api.oauth.Cors;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.IssuerSpelling;
import dev.warden.api.oauth.ciba.BackchannelApprovals;
import dev.warden.api.oauth.server.OAuthServer;
import dev.warden.api.oauth.token.GrantRepository;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.observe.HealthRoutes;
import dev.warden.api.observe.HttpObservation;
import dev.warden.api.observe.Logs;
import dev.warden.api.observe.Metrics;
import dev.warden.api.observe.MetricsRoutes;
import dev.warden.api.observe.StandardChecks;
import dev.warden.api.observe.Tracing;
import dev.warden.api.observe.TracingFilter;
import dev.warden.api.observe.WardenMeters;
import dev.warden.api.ratelimit.RateLimiting;
import dev.warden.api.rest.AgentStore;
import dev.warden.api.rest.RestApi;
import dev.warden.api.ssf.SecurityEventSigner;
import dev.warden.api.users.UsersComponent;
import dev.warden.api.users.UsersConfig;
import dev.warden.api.webhooks.Webhooks;
import dev.warden.launcher.roles.PipelineRole;
import dev.warden.launcher.roles.QuotaRole;
import dev.warden.launcher.roles.SharedSignalsWorkers;
import dev.warden.launcher.roles.SinksRole;
import dev.warden.runtime.consumer.GroupWaits;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.consumer.SinkHealth;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import dev.warden.runtime.outbound.TargetGuard;
import dev.warden.sinks.external.AuditSinks;
import dev.warden.sinks.ssf.SetSigner;
import dev.warden.sinks.ssf.SignalStreams;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * One running Warden process: the roles of a {@link WardenConfig} against a given Kafka and PostgreSQL.
 * Starting applies migrations and creates missing topics; closing stops everything in reverse order.
 * Every role serves {@code /observe/health}; the API role also serves the REST surface.
 */
public final class WardenPlatform implements AutoCloseable {
    private final Resources resources;
    private final WebServer server;
    private final String adminToken;
    private final Optional<String> setupToken;

    private final List<HealthCheck> checks;
    private final RouteTable routes;
    private final Authenticator authenticator;

    private WardenPlatform(
            Resources resources,
            WebServer server,
            String adminToken,
            Optional<String> setupToken,
            List<HealthCheck> checks,
            RouteTable routes,
            Authenticator authenticator) {
        this.resources = resources;
        this.server = server;
        this.adminToken = adminToken;
        this.setupToken = setupToken;
        this.checks = List.copyOf(checks);
        this.routes = routes;
        this.authenticator = authenticator;
    }

    /** How this process turns a bearer token into a principal (its credential chain). */
    public Authenticator authenticator() {
        return authenticator;
    }

    /** Every route this process serves, with the access it declared. */
    public List<RouteTable.Route> routes() {
        return routes.routes();
    }

    /**
     * Waits until every component reports UP (Kafka Streams applications finish their first rebalance a
     * moment after start), at most {@code timeout}.
     *
     * @return true when healthy in time
     */
    public boolean awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (checks.stream().allMatch(c -> c.check().up())) {
                return true;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /**
     * Starts the configured roles.
     *
     * @param kafkaBootstrap Kafka {@code host:port} list
     * @param jdbcUrl        PostgreSQL JDBC URL
     */
    public static WardenPlatform start(
            WardenConfig config, String kafkaBootstrap, String jdbcUrl, InstantSource clock) {
        return start(
                config, kafkaBootstrap, jdbcUrl, clock, config.tracing() ? Tracing.fromEnvironment() : Tracing.off());
    }

    /** As {@link #start(WardenConfig, String, String, InstantSource)}, recording spans with {@code tracing}. */
    public static WardenPlatform start(
            WardenConfig config, String kafkaBootstrap, String jdbcUrl, InstantSource clock, Tracing tracing) {
        Resources resources = new Resources();
        try {
            resources.add(tracing);
            Logs.configure(config.log().format());
            Metrics metrics = resources.add(new Metrics());
            String adminToken = config.bootstrapToken().orElseGet(() -> Tokens.mint(TokenKind.ADMIN));
            Admin admin = resources.add(KafkaClients.admin(kafkaBootstrap, config.instanceId() + "-admin"));
            TopicProvisioner.ensure(admin, config.kafka().topics());
            // Every component, in the order started; each is closed, in reverse, with the process.
            List<Component> components = new ArrayList<>();
            // The Kafka Streams applications first: their first rebalance is the slowest part of a start, and it
            // runs while the database is migrated and the rest is wired.
            if (config.runs(Role.PIPELINE)) {
                components.add(resources.add(PipelineRole.start(config, kafkaBootstrap)));
            }
            if (config.runs(Role.QUOTA)) {
                components.add(resources.add(QuotaRole.start(config, kafkaBootstrap, tracing.tracer())));
            }
            Database db =
                    resources.add(Database.connect(jdbcUrl, config.postgres().pool(), Optional.of(metrics.registry())));
            db.migrate();
            List<HealthCheck> checks =
                    new ArrayList<>(List.of(StandardChecks.postgres(db), StandardChecks.kafka(admin)));

            KafkaProducer<String, byte[]> producer =
                    resources.add(KafkaClients.durableProducer(kafkaBootstrap, config.instanceId() + "-events"));
            resources.add(new KafkaClientMetrics(producer)).bindTo(metrics.registry());
            EventOutbox outbox = resources.add(new EventOutbox(
                    db,
                    producer,
                    config.kafka().topics().events(),
                    config.kafka().topics().audit()));
            outbox.start(1_000);

            AgentStore store = AgentStore.on(db, clock);
            SecretCipher keyEncryption = config.oauth()
                    .keyEncryptionKeyBytes()
                    .map(SecretCipher::aes256)
                    .orElseGet(SecretCipher::none);
            long maxBody = config.server().maxBodyBytes();
            // Open registration at /mcp/register counts as anonymous registration for its per-IP cap (SPEC Limits).
            RateLimiting rateLimiting = resources.add(RateLimiting.start(
                    config.rateLimit(),
                    config.redisUrl(),
                    config.oauth().allowAnonymousRegistration()
                            || config.oauth().mcpRegistrationOpen(),
                    clock));
            Issuer issuer = config.oauth().issuer().map(Issuer::of).orElseGet(Issuer::loopback);
            // What ended a person's credentials, as the token caches see it (D187): this instance's revocations
            // once committed, and every instance's through the database's notification (heard by the REST API).
            CredentialRevocations revocations = new CredentialRevocations();
            GrantRepository userGrants = new GrantRepository(db, revocations);
            UsersComponent users = resources.add(UsersComponent.create(
                    config.users(),
                    db,
                    outbox,
                    rateLimiting.clientIp(),
                    clock,
                    maxBody,
                    keyEncryption,
                    config.mail(),
                    issuer::origin,
                    (user, at) -> userGrants.revokeAllOf(user, "password reset", at),
                    revocations));
            components.add(users);
            // The backchannel (CIBA) asks through the approvals, which the REST API holds: bound once it exists.
            BackchannelApprovals.Forward backchannel = new BackchannelApprovals.Forward();
            OAuthServer oauth = resources.add(new OAuthServer(
                    config.oauth(),
                    issuer,
                    db,
                    outbox,
                    resources.add(PublishedEvents.start(
                            kafkaBootstrap,
                            config.instanceId() + "-published-events",
                            config.kafka().topics().events())),
                    userGrants,
                    users,
                    store.directory(),
                    rateLimiting.clientIp(),
                    backchannel,
                    config.webhooks().allowPrivateTargets(),
                    clock,
                    maxBody));
            components.add(oauth);
            boolean api = config.runs(Role.API);
            Authenticator authenticator = Authenticator.standard(
                            config.bootstrapEnabled() ? Optional.of(Tokens.hash(adminToken)) : Optional.empty(),
                            store.agentTokens(),
                            store.apiTokens(),
                            users.service(),
                            clock)
                    .with(oauth.accessTokenResolver())
                    .with(users.administrators().resolver());
            Optional<String> setupToken = api ? users.administrators().issueSetupTokenIfFresh() : Optional.empty();
            SinkCounters auditCounters = new SinkCounters();
            List<SinkHealth> sinkHealth = new ArrayList<>();
            // Shared Signals: streams managed through the API role, fed and pushed by the sinks role.
            SignalStreams signalStreams = new SignalStreams(db, keyEncryption);
            SetSigner securityEvents = new SecurityEventSigner(oauth.signingKeys());
            Webhooks webhooks = Webhooks.create(config.webhooks(), api || config.runs(Role.SINKS), db, clock, maxBody);
            components.add(webhooks);
            if (config.runs(Role.SINKS)) {
                GroupWaits background = SinksRole.backgroundWaits(config);
                SinksRole sinks = resources.add(SinksRole.start(
                        config,
                        kafkaBootstrap,
                        admin,
                        db,
                        AuditSinks.build(config.auditSinks(), clock),
                        auditCounters,
                        clock,
                        tracing.tracer()));
                components.add(sinks);
                sinkHealth.addAll(sinks.sinkHealth());
                Webhooks.Worker webhookWorker = resources.add(webhooks.startWorker(
                        kafkaBootstrap,
                        config.streams().applicationPrefix() + "webhooks",
                        config.kafka().topics().events(),
                        background));
                components.add(webhookWorker);
                sinkHealth.add(webhookWorker.sinkHealth());
                SharedSignalsWorkers signals = resources.add(SharedSignalsWorkers.start(
                        db,
                        signalStreams,
                        kafkaBootstrap,
                        config.streams().applicationPrefix() + "sink-",
                        config.kafka().topics().events(),
                        issuer::value,
                        securityEvents,
                        config.webhooks().allowPrivateTargets(),
                        Duration.ofDays(config.eventStream().retentionDays()),
                        background,
                        clock,
                        tracing.tracer()));
                components.add(signals);
                sinkHealth.add(signals.sinkHealth());
            }
            if (api) {
                RestApi rest = resources.add(RestApi.start(
                        new RestApi.Settings(
                                config.instanceId(),
                                config.kafka().topics(),
                                eventStream(config.eventStream())
                                        .withSessionCookies(List.of(
                                                users.cookies().adminName(),
                                                users.cookies().name())),
                                config.oauth().allowedOrigins(),
                                config.server().accountRoutes(),
                                maxBody),
                        new RestApi.Wiring(
                                kafkaBootstrap,
                                admin,
                                db,
                                producer,
                                outbox,
                                store,
                                authenticator,
                                issuer,
                                oauth.agentClients(),
                                userGrants,
                                oauth.tokenGrants().types(),
                                auditCounters,
                                metrics.registry(),
                                tracing,
                                rateLimiting.clientIp(),
                                approvalMail(users),
                                auditSinkNames(config.auditSinks()),
                                new RestApi.SignalsWiring(
                                        signalStreams,
                                        securityEvents,
                                        TargetGuard.system(config.webhooks().allowPrivateTargets())),
                                clock)));
                components.add(rest);
                backchannel.bind(rest.approvals().backchannel());
                Doctor doctor = resources.add(Doctor.start(
                        DoctorSettings.from(config), issuer, rateLimiting.clientIp(), sinkHealth, db, clock));
                components.add(ConsoleComponent.create(
                        rest,
                        webhooks,
                        users,
                        new PlatformOperations(checks, doctor, new DeadLetterRepository(db)),
                        rateLimiting.clientIp(),
                        clock,
                        maxBody));
                components.add(doctor);
            }
            List<WardenApi.Mount> mounts = new ArrayList<>();
            for (Component component : components) {
                if (api) {
                    mounts.addAll(component.mounts());
                }
                checks.addAll(component.healthChecks());
                component.bindMeters(metrics.registry());
            }
            WardenMeters.audit(metrics.registry(), auditCounters);
            RouteTable routes = new RouteTable();
            WardenApi wardenApi = new WardenApi(
                    new AuthFilter(
                            authenticator,
                            routes,
                            Optional.of(new AuthFilter.CookieSessions(
                                    users.cookies().name(), issuer::origin)),
                            oauth.challenges(),
                            stepUp(config.users().stepUp())),
                    new HealthRoutes(
                            checks,
                            config.roles().stream().map(Role::wireName).sorted().toList()),
                    new MetricsRoutes(metrics),
                    mounts,
                    routes);

            HttpRouting.Builder routing = HttpRouting.builder();
            // Outermost: once a request is answered, its connection's thread lets the other connections run (D200).
            routing.addFilter(new TakeTurns());
            // Then: every later filter and route sees the issuer as this request spelled it (a loopback issuer).
            routing.addFilter(new IssuerSpelling(issuer));
            if (tracing.enabled()) {
                routing.addFilter(new TracingFilter(tracing.tracer(), routes));
            }
            routing.addFilter(new HttpObservation(
                    metrics.registry(), routes, config.log().access(), rateLimiting.clientIp()::text));
            if (api) {
                // Before authentication, so that public endpoints (sign-in, sign-up) are limited too.
                // CORS first: preflights carry no token, and a browser client must be able to read a 429 too.
                routing.addFilter(new Cors());
                routing.addFilter(rateLimiting.filter());
            }
            wardenApi.routing(routing);
            WebServer server = WebServer.builder()
                    .host(config.server().host())
                    .port(config.server().port())
                    // Nagle off: an SSE event is a small write flushed on its own; with Nagle on, one written while
                    // the previous is unacknowledged waited for the client's delayed ACK, up to 40 ms on Linux
                    // (docs/events.md, "Across instances").
                    .connectionOptions(socket -> socket.tcpNoDelay(true))
                    // Per-connection buffers, which an open event stream holds for its whole life (SSE fan-out,
                    // docs/benchmarks-notebook.md, issue 41): the blocking socket reads into one 8 KB buffer and
                    // writes straight to the socket (the NIO socket, Helidon's default, keeps an 8 KB read and an
                    // 8 KB write buffer), and a streamed response buffers 512 bytes, not 4 KB (the event stream writes
                    // one array per event, an audit export writes 8 KB blocks; other responses are sent whole).
                    .useNio(false)
                    .writeBufferSize(512)
                    .routing(routing)
                    .shutdownHook(false)
                    .build()
                    .start();
            resources.add(server::stop);
            if (config.oauth().issuer().isEmpty()) {
                issuer.resolve("http://localhost:" + server.port());
            }
            return new WardenPlatform(resources, server, adminToken, setupToken, checks, routes, authenticator);
        } catch (RuntimeException e) {
            resources.close();
            throw e;
        }
    }

    /** The path prefixes of the configured step-up areas, each with the name its refusal gives. */
    private static AuthFilter.StepUp stepUp(Set<UsersConfig.StepUp> areas) {
        Map<String, String> prefixes = new LinkedHashMap<>();
        for (UsersConfig.StepUp area : areas) {
            switch (area) {
                case ORGANIZATION_ADMIN ->
                    prefixes.put(WardenApi.ADMIN_PATH + "/organizations", "organization administration");
                case ACCOUNT -> prefixes.put("/account", "the account routes");
            }
        }
        return new AuthFilter.StepUp(prefixes);
    }

    /** The event stream's limits as configured (its token check is the REST surface's). */
    private static EventStreamConfig eventStream(WardenConfig.EventStreamSettings settings) {
        return EventStreamConfig.builder()
                .maxConnections(settings.maxConnections())
                .heartbeatInterval(Duration.ofMillis(settings.heartbeatIntervalMs()))
                .maxPerSubscriber(settings.maxPerSubscriber())
                .adminReserve(settings.adminReserve())
                .build();
    }

    /** The HTTP port actually bound. */
    public int port() {
        return server.port();
    }

    /** {@code http://localhost:port}. */
    public URI baseUri() {
        return URI.create("http://localhost:" + port());
    }

    /** The bootstrap admin token (configured, or minted at start); it works only while the bootstrap is enabled. */
    public String adminToken() {
        return adminToken;
    }

    /**
     * The first-run setup token this start minted: present on an installation with no administrator yet and no
     * setup under way (API role only). Shown once; only its hash is kept.
     */
    public Optional<String> setupToken() {
        return setupToken;
    }

    @Override
    public void close() {
        resources.close();
    }

    /**
     * Approval requests by e-mail (docs/approvals.md): the agent's owner, at their verified address, in the
     * transaction that stores the request. Requests for an organization's administrators are not mailed yet.
     */
    /** Each configured audit sink's name and type, in order (the names its durable worker is kept under). */
    private static java.util.Map<String, String> auditSinkNames(List<dev.warden.sinks.external.AuditSinkSpec> specs) {
        List<String> names = dev.warden.sinks.external.AuditSinks.names(specs);
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            out.put(names.get(i), specs.get(i).type().wireName());
        }
        return out;
    }

    private static ApprovalService.Notifier approvalMail(UsersComponent users) {
        return new ApprovalService.Notifier() {
            @Override
            public void requested(Connection conn, Approval approval) throws SQLException {
                if (users.mail().enabled()) {
                    mailApprovers(users, conn, approval);
                }
            }

            @Override
            public void committed() {
                // The messages were queued in the request's transaction: now they can be read, and sent.
                users.mail().wake();
            }
        };
    }

    /** Queues the approval-requested mail to each approver of {@code approval} with a verified address. */
    private static void mailApprovers(UsersComponent users, Connection conn, Approval approval) throws SQLException {
        // The owner, or every member who holds approvals:admin in the organization (with a verified address)
        List<String> approvers = approval.approvers() == dev.warden.authorizer.domain.ApprovalRule.Approvers.OWNER
                ? List.of(approval.approverScope())
                : dev.warden.api.organizations.JdbcOrganizationRepository.holders(
                        conn, approval.approverScope(), "approvals:admin");
        for (String approver : approvers) {
            users.emailRoutes()
                    .accounts()
                    .mailVerified(
                            conn,
                            approver,
                            "approval-requested",
                            "An agent waits for your approval",
                            Map.of(
                                    "agentId", approval.agentId(),
                                    "action", approval.action(),
                                    "resource", approval.resource(),
                                    "expiresAt", dev.warden.pipeline.contract.Json.timestamp(approval.expiresAt())));
        }
    }
}
