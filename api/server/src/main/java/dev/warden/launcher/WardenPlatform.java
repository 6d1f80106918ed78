package dev.warden.launcher;

import dev.warden.api.WardenApi;
import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.access.RouteTable;
import dev.warden.api.account.AccountRoutes;
import dev.warden.api.agents.AgentRoutes;
import dev.warden.api.agents.AgentService;
import dev.warden.api.agents.JdbcAgentRepository;
import dev.warden.api.audit.AuditRoutes;
import dev.warden.api.audit.AuditTopicEnd;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.auth.AgentTokenResolver;
import dev.warden.api.auth.ApiTokenRoutes;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.auth.Authenticator;
import dev.warden.api.auth.JdbcApiTokenRepository;
import dev.warden.api.auth.TokenKind;
import dev.warden.api.auth.Tokens;
import dev.warden.api.authorize.AuditPublisher;
import dev.warden.api.authorize.AuthorizationService;
import dev.warden.api.authorize.AuthorizeRoutes;
import dev.warden.api.authorize.DecisionMeters;
import dev.warden.api.authorize.PolicyResolver;
import dev.warden.api.authorize.QuotaClient;
import dev.warden.api.config.Role;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.contract.OpenApiRoutes;
import dev.warden.api.costs.CostRoutes;
import dev.warden.api.costs.CostService;
import dev.warden.api.dashboard.DashboardRoutes;
import dev.warden.api.dashboard.DashboardStats;
import dev.warden.api.dashboard.DashboardView;
import dev.warden.api.db.Database;
import dev.warden.api.db.ServerSecrets;
import dev.warden.api.deadletters.DeadLetterRepository;
import dev.warden.api.deadletters.DeadLetterRoutes;
import dev.warden.api.delegations.DelegationRoutes;
import dev.warden.api.delegations.DelegationService;
import dev.warden.api.delegations.JdbcDelegationRepository;
import dev.warden.api.doctor.Doctor;
import dev.warden.api.doctor.DoctorRoutes;
import dev.warden.api.doctor.DoctorSettings;
import dev.warden.api.events.AccessChanges;
import dev.warden.api.events.EventFeed;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.events.FeedEvent;
import dev.warden.api.events.stream.EventStream;
import dev.warden.api.events.stream.EventStreamConfig;
import dev.warden.api.events.stream.JdbcStreamEventStore;
import dev.warden.api.events.stream.Subscriber;
import dev.warden.api.kafka.KafkaClients;
import dev.warden.api.kafka.TopicProvisioner;
import dev.warden.api.mcp.McpRoutes;
import dev.warden.api.oauth.Cors;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.agents.AgentClientRepository;
import dev.warden.api.oauth.agents.AgentClientRoutes;
import dev.warden.api.oauth.server.OAuthServer;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.observe.HealthCheck.Result;
import dev.warden.api.observe.HealthRoutes;
import dev.warden.api.observe.HttpObservation;
import dev.warden.api.observe.Logs;
import dev.warden.api.observe.Metrics;
import dev.warden.api.observe.MetricsRoutes;
import dev.warden.api.observe.StandardChecks;
import dev.warden.api.observe.Tracing;
import dev.warden.api.observe.TracingFilter;
import dev.warden.api.observe.WardenMeters;
import dev.warden.api.organizations.JdbcOrganizationRepository;
import dev.warden.api.organizations.ListCursor;
import dev.warden.api.organizations.OrganizationAdminRoutes;
import dev.warden.api.organizations.OrganizationRoutes;
import dev.warden.api.organizations.OrganizationService;
import dev.warden.api.ratelimit.RateLimiting;
import dev.warden.api.users.UsersComponent;
import dev.warden.api.webhooks.Webhooks;
import dev.warden.launcher.roles.PipelineRole;
import dev.warden.launcher.roles.QuotaRole;
import dev.warden.launcher.roles.SinksRole;
import dev.warden.pipeline.contract.EventType;
import dev.warden.sinks.external.AuditSinks;
import dev.warden.sinks.runtime.ConsumerLoop;
import dev.warden.sinks.runtime.SinkCounters;
import dev.warden.sinks.runtime.SinkHealth;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.opentelemetry.api.trace.SpanKind;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * One running Warden process: the roles of a {@link WardenConfig} against a given Kafka and PostgreSQL.
 * Starting applies migrations and creates missing topics; closing stops everything in reverse order.
 * Every role serves {@code /observe/health}; the API role also serves the REST surface.
 */
public final class WardenPlatform implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WardenPlatform.class.getName());

    private final Deque<AutoCloseable> resources;
    private final WebServer server;
    private final String adminToken;

    private final List<HealthCheck> checks;
    private final RouteTable routes;
    private final Authenticator authenticator;

    private WardenPlatform(
            Deque<AutoCloseable> resources,
            WebServer server,
            String adminToken,
            List<HealthCheck> checks,
            RouteTable routes,
            Authenticator authenticator) {
        this.resources = resources;
        this.server = server;
        this.adminToken = adminToken;
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
        Deque<AutoCloseable> resources = new ArrayDeque<>();
        try {
            push(resources, tracing);
            Logs.configure(config.log().format());
            Metrics metrics = push(resources, new Metrics());
            String adminToken = config.bootstrapToken().orElseGet(() -> Tokens.mint(TokenKind.ADMIN));
            Admin admin = push(resources, KafkaClients.admin(kafkaBootstrap, config.instanceId() + "-admin"));
            TopicProvisioner.ensure(admin, config.kafka().topics());
            List<HealthCheck> allChecks = new ArrayList<>();
            // The Kafka Streams applications first: their first rebalance is the slowest part of a start, and it
            // runs while the database is migrated and the rest is wired.
            if (config.runs(Role.PIPELINE)) {
                PipelineRole pipeline = push(resources, PipelineRole.start(config, kafkaBootstrap));
                allChecks.add(pipeline.health());
            }
            if (config.runs(Role.QUOTA)) {
                QuotaRole quota = push(resources, QuotaRole.start(config, kafkaBootstrap, tracing.tracer()));
                allChecks.add(quota.health());
            }
            Database db = push(
                    resources, Database.connect(jdbcUrl, config.postgres().pool(), Optional.of(metrics.registry())));
            db.migrate();
            allChecks.add(0, StandardChecks.postgres(db));
            allChecks.add(1, StandardChecks.kafka(admin));

            KafkaProducer<String, byte[]> producer =
                    push(resources, KafkaClients.durableProducer(kafkaBootstrap, config.instanceId() + "-events"));
            push(resources, new KafkaClientMetrics(producer)).bindTo(metrics.registry());
            EventOutbox outbox = push(
                    resources,
                    new EventOutbox(
                            db,
                            producer,
                            config.kafka().topics().events(),
                            config.kafka().topics().audit()));
            outbox.start(1_000);

            JdbcAgentRepository agentRepository = new JdbcAgentRepository(db);
            JdbcApiTokenRepository tokenRepository = new JdbcApiTokenRepository(db);
            JdbcDelegationRepository delegationRepository = new JdbcDelegationRepository(db);
            // Open registration at /mcp/register counts as anonymous registration for its per-IP cap (SPEC Limits).
            RateLimiting rateLimiting = push(
                    resources,
                    RateLimiting.start(
                            config.rateLimit(),
                            config.redisUrl(),
                            config.oauth().allowAnonymousRegistration()
                                    || config.oauth().mcpRegistrationOpen(),
                            clock));
            UsersComponent users = UsersComponent.create(
                    config.users(),
                    db,
                    outbox,
                    rateLimiting.clientIp(),
                    clock,
                    config.server().maxBodyBytes());
            AgentTokenResolver agentTokens = new AgentTokenResolver(agentRepository, clock);
            Issuer issuer = config.oauth().issuer().map(Issuer::of).orElseGet(Issuer::unresolved);
            PolicyResolver resolver = new PolicyResolver(agentRepository, delegationRepository, clock);
            OAuthServer oauth = push(
                    resources,
                    new OAuthServer(
                            config.oauth(),
                            issuer,
                            db,
                            users,
                            new RestAgentDirectory(
                                    agentRepository, agentTokens.cached(), delegationRepository, resolver),
                            rateLimiting.clientIp(),
                            config.webhooks().allowPrivateTargets(),
                            clock));
            Authenticator authenticator = Authenticator.standard(
                            Tokens.hash(adminToken), agentTokens, tokenRepository, users.service(), clock)
                    .with(oauth.accessTokenResolver());
            SinkCounters counters = new SinkCounters();
            List<SinkHealth> sinkHealth = new ArrayList<>();
            Webhooks webhooks =
                    Webhooks.create(config.webhooks(), config.runs(Role.API) || config.runs(Role.SINKS), db, clock);
            if (config.runs(Role.SINKS)) {
                SinksRole sinks = push(
                        resources,
                        SinksRole.start(
                                config,
                                kafkaBootstrap,
                                admin,
                                db,
                                AuditSinks.build(config.auditSinks(), clock),
                                counters,
                                clock,
                                tracing.tracer()));
                allChecks.add(sinks.health());
                sinkHealth.addAll(sinks.sinkHealth());
                Webhooks.Worker webhookWorker = push(
                        resources,
                        webhooks.startWorker(
                                kafkaBootstrap,
                                config.streams().applicationPrefix() + "webhooks",
                                config.kafka().topics().events()));
                allChecks.add(webhookWorker.health());
                sinkHealth.add(webhookWorker.sinkHealth());
            }
            boolean api = config.runs(Role.API);
            List<WardenApi.Mount> mounts = List.of();
            if (api) {
                List<WardenApi.Mount> all = new ArrayList<>(apiRoutes(
                        config,
                        kafkaBootstrap,
                        admin,
                        clock,
                        resources,
                        db,
                        producer,
                        outbox,
                        agentRepository,
                        tokenRepository,
                        delegationRepository,
                        authenticator,
                        agentTokens,
                        resolver,
                        counters,
                        metrics,
                        tracing,
                        allChecks,
                        issuer,
                        oauth.agentClients(),
                        oauth.tokenGrants().types()));
                all.addAll(oauth.mounts(authenticator, config.server().maxBodyBytes()));
                all.add(new WardenApi.Mount(
                        "/webhooks", webhooks.routes(config.server().maxBodyBytes())));
                all.add(new WardenApi.Mount("/auth", users.routes()));
                Doctor doctor = push(
                        resources,
                        Doctor.start(
                                DoctorSettings.from(config), issuer, rateLimiting.clientIp(), sinkHealth, db, clock));
                all.add(new WardenApi.Mount("/auth/admin/doctor", new DoctorRoutes(doctor)));
                mounts = List.copyOf(all);
            }
            RouteTable routes = new RouteTable();
            WardenApi wardenApi = new WardenApi(
                    new AuthFilter(
                            authenticator,
                            routes,
                            Optional.of(new AuthFilter.CookieSessions(
                                    users.cookies().name(), issuer::origin)),
                            oauth.challenges()),
                    new HealthRoutes(
                            allChecks,
                            config.roles().stream().map(Role::wireName).sorted().toList()),
                    new MetricsRoutes(metrics),
                    mounts,
                    routes);
            WardenMeters.audit(metrics.registry(), counters);
            WardenMeters.webhooks(metrics.registry(), webhooks.counters());
            WardenMeters.sinks(metrics.registry(), sinkHealth);

            HttpRouting.Builder routing = HttpRouting.builder();
            if (tracing.enabled()) {
                routing.addFilter(new TracingFilter(tracing.tracer(), routes));
            }
            routing.addFilter(
                    new HttpObservation(metrics.registry(), routes, config.log().access()));
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
                    .routing(routing)
                    .shutdownHook(false)
                    .build()
                    .start();
            resources.push(server::stop);
            if (config.oauth().issuer().isEmpty()) {
                issuer.resolve("http://localhost:" + server.port());
            }
            return new WardenPlatform(resources, server, adminToken, allChecks, routes, authenticator);
        } catch (RuntimeException e) {
            closeAll(resources);
            throw e;
        }
    }

    private static List<WardenApi.Mount> apiRoutes(
            WardenConfig config,
            String kafkaBootstrap,
            Admin admin,
            InstantSource clock,
            Deque<AutoCloseable> resources,
            Database db,
            KafkaProducer<String, byte[]> producer,
            EventOutbox outbox,
            JdbcAgentRepository agentRepository,
            JdbcApiTokenRepository tokenRepository,
            JdbcDelegationRepository delegationRepository,
            Authenticator authenticator,
            AgentTokenResolver agentTokens,
            PolicyResolver resolver,
            SinkCounters counters,
            Metrics metrics,
            Tracing tracing,
            List<HealthCheck> checks,
            Issuer issuer,
            AgentClientRepository agentClients,
            List<String> grantTypes) {
        long maxBody = config.server().maxBodyBytes();
        Runnable invalidate = () -> {
            resolver.invalidateAll();
            agentTokens.invalidate();
        };
        // The first path: PostgreSQL delivers the change's NOTIFY when it commits, behind no audit traffic.
        push(resources, AccessChanges.listen(db, invalidate));
        EventFeed feed = push(
                resources,
                new EventFeed(kafkaBootstrap, config.kafka().topics().events(), config.instanceId() + "-feed"));
        // The second path, at no extra cost: the SSE hub's own reader of warden.events, which sees each change
        // once it is on the topic (behind no transaction of audit traffic: docs/events.md).
        feed.subscribe(event -> {
            if (event.type().changesAccess()) {
                invalidate.run();
            }
        });
        feed.meters().bindTo(metrics.registry());
        feed.start();
        EventStream stream = push(
                resources,
                new EventStream(
                        EventStreamConfig.builder()
                                .maxConnections(config.eventStream().maxConnections())
                                .heartbeatInterval(
                                        Duration.ofMillis(config.eventStream().heartbeatIntervalMs()))
                                .maxPerSubscriber(config.eventStream().maxPerSubscriber())
                                .adminReserve(config.eventStream().adminReserve())
                                .validateToken(token -> authenticator
                                        .authenticate(token)
                                        .filter(p -> p.holds(STREAM_SCOPE) && p.validFor(issuer.restResource()))
                                        .map(WardenPlatform::subscriber))
                                .build(),
                        new JdbcStreamEventStore(db, config.kafka().topics().events()),
                        feed.startPosition()));
        feed.subscribe(tracing.traced("sse deliver", SpanKind.CONSUMER, FeedEvent::trace, stream::emit));
        WardenMeters.stream(metrics.registry(), stream);
        DelegationService delegations =
                new DelegationService(delegationRepository, agentRepository, resolver, outbox, clock);
        OrganizationService organizations = new OrganizationService(new JdbcOrganizationRepository(db), outbox, clock);
        AgentService agents = new AgentService(
                agentRepository,
                outbox,
                clock,
                List.of((agent, change, actor) -> invalidate.run(), (agent, change, actor) -> {
                    if (change == EventType.AGENT_REVOKED) {
                        delegations.revokeChainsFrom(agent.id(), actor);
                    }
                }),
                organizations);
        QuotaClient quota = push(
                resources,
                new QuotaClient(
                        kafkaBootstrap,
                        config.kafka().topics().quotaRequests(),
                        config.kafka().topics().quotaReplies(),
                        config.instanceId(),
                        Duration.ofSeconds(5)));
        DashboardView dashboardView = push(
                resources,
                new DashboardView(
                        kafkaBootstrap,
                        config.kafka().topics().dashboardHourly(),
                        config.kafka().topics().dashboardTotals(),
                        config.instanceId() + "-dashboard"));
        dashboardView.start();
        checks.add(consumersHealth(Map.of(
                "event-feed", feed::health, "quota-replies", quota::health, "dashboard-view", dashboardView::health)));
        AuditPublisher audit =
                new AuditPublisher(producer, config.kafka().topics().audit(), counters, tracing.tracer());
        FunctionCounter.builder("warden.audit.publish.failures", audit, AuditPublisher::failureCount)
                .description("Audit entries Kafka did not acknowledge (each answered 503; no decision made).")
                .register(metrics.registry());
        AuthorizationService authorization =
                new AuthorizationService(resolver, quota, audit, clock, new DecisionMeters(metrics.registry()));
        JdbcAuditReader auditReader =
                new JdbcAuditReader(db, config.kafka().topics().audit());
        DashboardStats dashboard = new DashboardStats(dashboardView, agentRepository, clock);
        List<WardenApi.Mount> mounts = new ArrayList<>(List.of(
                new WardenApi.Mount("/agents", new AgentRoutes(agents, clock, maxBody)),
                new WardenApi.Mount("/agents", new AgentClientRoutes(agents::manageable, agentClients, issuer, clock)),
                new WardenApi.Mount(
                        "/agents", new CostRoutes(new CostService(agentRepository, db, outbox, clock), maxBody)),
                new WardenApi.Mount("/auth/tokens", new ApiTokenRoutes(tokenRepository, clock, maxBody)),
                new WardenApi.Mount("/delegations", new DelegationRoutes(delegations, maxBody)),
                new WardenApi.Mount("/authorize", new AuthorizeRoutes(authorization, maxBody)),
                new WardenApi.Mount(
                        "/audit",
                        new AuditRoutes(
                                auditReader,
                                new AuditTopicEnd(admin, config.kafka().topics().audit(), audit),
                                counters,
                                Duration.ofSeconds(5))),
                new WardenApi.Mount("/dashboard", new DashboardRoutes(dashboard)),
                new WardenApi.Mount(
                        "/mcp",
                        McpRoutes.create(
                                agents,
                                authorization,
                                auditReader,
                                dashboard,
                                clock,
                                issuer,
                                config.oauth().allowedOrigins(),
                                maxBody)),
                new WardenApi.Mount("/admin/dead-letters", new DeadLetterRoutes(new DeadLetterRepository(db))),
                new WardenApi.Mount(
                        WardenApi.EVENT_STREAM_PATH,
                        rules -> rules.any("/", Access.selfAuthenticating(), stream::handleRequest)),
                new WardenApi.Mount("/", new OpenApiRoutes(grantTypes)),
                new WardenApi.Mount("/admin/v1", new OrganizationRoutes(organizations, maxBody)),
                new WardenApi.Mount(
                        "/admin/v1",
                        new OrganizationAdminRoutes(
                                organizations,
                                agents,
                                delegations,
                                new ListCursor(ServerSecrets.get(db, "list-cursor")),
                                clock))));
        if (config.server().accountRoutes()) {
            mounts.add(new WardenApi.Mount("/account", new AccountRoutes(agents, delegations, clock)));
        }
        return List.copyOf(mounts);
    }

    /** UP while every consumer loop of the API role has started and runs; the detail counts what they skipped. */
    private static HealthCheck consumersHealth(Map<String, Supplier<ConsumerLoop.Health>> loops) {
        return HealthCheck.of("api-consumers", () -> {
            List<String> notRunning = new ArrayList<>();
            long failures = 0;
            for (Map.Entry<String, Supplier<ConsumerLoop.Health>> loop : new TreeMap<>(loops).entrySet()) {
                ConsumerLoop.Health health = loop.getValue().get();
                failures += health.failures();
                if (!health.started() || !health.running()) {
                    notRunning.add(loop.getKey());
                }
            }
            return notRunning.isEmpty()
                    ? Result.up("consuming (" + failures + " failures retried or skipped so far)")
                    : Result.down("not consuming: " + String.join(", ", notRunning));
        });
    }

    /** What a user's API token needs to open the event stream. */
    private static final String STREAM_SCOPE = "events:read";

    /** Stream visibility: the admin sees everything, a user their own events, an agent events about itself. */
    private static Subscriber subscriber(Principal principal) {
        return switch (AccessPolicy.eventVisibility(principal)) {
            case AccessPolicy.EventVisibility.All all -> Subscriber.administrator(principal.subjectId());
            case AccessPolicy.EventVisibility.OfUser user -> Subscriber.ofUser(principal.subjectId(), user.userId());
            case AccessPolicy.EventVisibility.OfAgent agent ->
                Subscriber.ofAgent(principal.subjectId(), agent.agentId());
        };
    }

    private static <T extends AutoCloseable> T push(Deque<AutoCloseable> resources, T resource) {
        resources.push(resource);
        return resource;
    }

    /** The HTTP port actually bound. */
    public int port() {
        return server.port();
    }

    /** {@code http://localhost:port}. */
    public URI baseUri() {
        return URI.create("http://localhost:" + port());
    }

    /** The bootstrap admin token in force (configured, or minted at start). */
    public String adminToken() {
        return adminToken;
    }

    @Override
    public void close() {
        closeAll(resources);
    }

    private static void closeAll(Deque<AutoCloseable> resources) {
        while (!resources.isEmpty()) {
            AutoCloseable resource = resources.pop();
            try {
                resource.close();
            } catch (Exception e) {
                LOG.log(Level.WARNING, "error while stopping " + resource, e);
            }
        }
    }
}
