package dev.warden.api.rest;

import static dev.warden.api.WardenApi.ADMIN_PATH;

import dev.warden.api.Component;
import dev.warden.api.Resources;
import dev.warden.api.WardenApi;
import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.account.AccountRoutes;
import dev.warden.api.agents.AgentRoutes;
import dev.warden.api.agents.AgentService;
import dev.warden.api.approvals.ApprovalRoutes;
import dev.warden.api.approvals.ApprovalService;
import dev.warden.api.approvals.JdbcApprovalRepository;
import dev.warden.api.audit.AuditRoutes;
import dev.warden.api.audit.AuditTopicEnd;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.auth.ApiTokenRoutes;
import dev.warden.api.auth.Authenticator;
import dev.warden.api.authorize.AuditPublisher;
import dev.warden.api.authorize.AuthorizationService;
import dev.warden.api.authorize.AuthorizeRoutes;
import dev.warden.api.authorize.DecisionMeters;
import dev.warden.api.authorize.QuotaClient;
import dev.warden.api.authzen.AuthzenConfiguration;
import dev.warden.api.authzen.AuthzenRoutes;
import dev.warden.api.contract.OpenApiRoutes;
import dev.warden.api.costs.CostRoutes;
import dev.warden.api.costs.CostService;
import dev.warden.api.dashboard.DashboardRoutes;
import dev.warden.api.dashboard.DashboardStats;
import dev.warden.api.dashboard.DashboardView;
import dev.warden.api.dashboard.SpendView;
import dev.warden.api.deadletters.DeadLetterRepository;
import dev.warden.api.deadletters.DeadLetterRoutes;
import dev.warden.api.delegations.DelegationRoutes;
import dev.warden.api.delegations.DelegationService;
import dev.warden.api.errors.WardenException;
import dev.warden.api.events.AccessChanges;
import dev.warden.api.events.EventFeed;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.events.FeedEvent;
import dev.warden.api.events.stream.EventStream;
import dev.warden.api.events.stream.EventStreamConfig;
import dev.warden.api.events.stream.JdbcStreamEventStore;
import dev.warden.api.events.stream.Subscriber;
import dev.warden.api.http.ListCursor;
import dev.warden.api.mcp.McpRoutes;
import dev.warden.api.oauth.Issuer;
import dev.warden.api.oauth.agents.AgentClientRepository;
import dev.warden.api.oauth.agents.AgentClientRoutes;
import dev.warden.api.oauth.token.GrantRepository;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.observe.HealthCheck.Result;
import dev.warden.api.observe.Tracing;
import dev.warden.api.observe.WardenMeters;
import dev.warden.api.organizations.JdbcOrganizationRepository;
import dev.warden.api.organizations.OrganizationAdminRoutes;
import dev.warden.api.organizations.OrganizationRoutes;
import dev.warden.api.organizations.OrganizationService;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.sinks.SinkControlRoutes;
import dev.warden.api.ssf.SharedSignalsRoutes;
import dev.warden.api.ssf.SsfConfiguration;
import dev.warden.authorizer.condition.Conditions;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Topics;
import dev.warden.runtime.consumer.ConsumerLoop;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.ServerSecrets;
import dev.warden.runtime.outbound.TargetGuard;
import dev.warden.sinks.ssf.SetSigner;
import dev.warden.sinks.ssf.SignalStreams;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.SpanKind;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The REST surface of the API role as one component: agents, delegations, {@code POST /authorize}, the audit
 * log, the dashboard, the event stream, organizations, the MCP tools and the OpenAPI document, with the Kafka
 * readers they need (the event feed, quota replies, the dashboard view) and the two paths by which a change of
 * access reaches the caches ({@code NOTIFY} and the event feed).
 */
public final class RestApi implements Component {
    /** What a user's API token needs to open the event stream. */
    private static final String STREAM_SCOPE = "events:read";
    /** The longest a Shared Signals poll waits for a token (RFC 8936 long polling). */
    private static final Duration SSF_LONG_POLL = Duration.ofSeconds(10);

    /**
     * What the REST surface is configured with.
     *
     * @param instanceId     this process's id (Kafka client ids)
     * @param topics         the topic layout
     * @param stream         the event stream's limits (its token check is the REST surface's own)
     * @param allowedOrigins browser origins {@code /mcp} accepts besides the issuer's own and loopback
     * @param accountRoutes  whether {@code /account/agents} and {@code /account/delegations} are mounted
     * @param maxBodyBytes   the largest request body a route reads
     */
    public record Settings(
            String instanceId,
            Topics topics,
            EventStreamConfig stream,
            List<String> allowedOrigins,
            boolean accountRoutes,
            long maxBodyBytes) {
        public Settings {
            allowedOrigins = List.copyOf(allowedOrigins);
        }
    }

    /**
     * What the REST surface takes from the process: its connections and what other components own.
     *
     * @param auditCounters the audit entries published and acknowledged, shared with the sinks role's counters
     * @param grantTypes    the grant types the token endpoint offers (the OpenAPI document lists them)
     * @param signals       the Shared Signals streams, the signer of their tokens and the guard of push endpoints
     */
    public record Wiring(
            String kafkaBootstrap,
            Admin admin,
            Database db,
            KafkaProducer<String, byte[]> producer,
            EventOutbox outbox,
            AgentStore store,
            Authenticator authenticator,
            Issuer issuer,
            AgentClientRepository agentClients,
            GrantRepository userGrants,
            List<String> grantTypes,
            SinkCounters auditCounters,
            MeterRegistry meters,
            Tracing tracing,
            ClientIp clientIp,
            ApprovalService.Notifier approvalNotifier,
            Map<String, String> auditSinks,
            SignalsWiring signals,
            InstantSource clock) {
        public Wiring {
            grantTypes = List.copyOf(grantTypes);
            auditSinks = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(auditSinks));
        }
    }

    /** What the Shared Signals transmitter's routes take (docs/shared-signals.md). */
    public record SignalsWiring(SignalStreams streams, SetSigner signer, TargetGuard guard) {}

    private final List<WardenApi.Mount> mounts;
    private final HealthCheck consumers;
    private final Resources resources;
    private final AgentService agents;
    private final JdbcAuditReader audit;
    private final DelegationService delegations;
    private final DashboardStats dashboard;
    private final OrganizationService organizations;
    private final ApprovalService approvals;

    private RestApi(
            List<WardenApi.Mount> mounts,
            HealthCheck consumers,
            Resources resources,
            AgentService agents,
            JdbcAuditReader audit,
            DelegationService delegations,
            DashboardStats dashboard,
            OrganizationService organizations,
            ApprovalService approvals) {
        this.approvals = approvals;
        this.mounts = List.copyOf(mounts);
        this.consumers = consumers;
        this.resources = resources;
        this.agents = agents;
        this.audit = audit;
        this.delegations = delegations;
        this.dashboard = dashboard;
        this.organizations = organizations;
    }

    /** The approvals service the REST routes use: the console lists and decides requests through it too. */
    public ApprovalService approvals() {
        return approvals;
    }

    /** The organizations service the REST routes use: the console shows members and roles through it too. */
    public OrganizationService organizations() {
        return organizations;
    }

    /** The delegations service the REST routes use: the console reads and revokes through it too. */
    public DelegationService delegations() {
        return delegations;
    }

    /** The dashboard statistics the REST route answers with: the console draws them. */
    public DashboardStats dashboard() {
        return dashboard;
    }

    /** The audit log's reader the REST routes use: the console searches through it too. */
    public JdbcAuditReader audit() {
        return audit;
    }

    /** The agents service the REST routes use: the console reads and acts through it too. */
    public AgentService agents() {
        return agents;
    }

    /** Who may decide approvals for an organization: whoever holds {@code approvals:admin} there. */
    private static ApprovalService.OrganizationAdmins approvalAdmins(OrganizationService organizations) {
        return new ApprovalService.OrganizationAdmins() {
            @Override
            public boolean isAdmin(Principal caller, String organizationId) {
                organizations.authority(caller, organizationId, "approvals:admin");
                return true;
            }

            @Override
            public List<String> of(Principal caller) {
                List<String> ids = new ArrayList<>();
                for (var membership : organizations.mine(caller)) {
                    String id = membership.organization().id();
                    try {
                        organizations.authority(caller, id, "approvals:admin");
                        ids.add(id);
                    } catch (WardenException e) {
                        // a member without approvals:admin there
                    }
                }
                return ids;
            }
        };
    }

    /** Starts the Kafka readers and wires every route; on failure, stops what it started and rethrows. */
    public static RestApi start(Settings settings, Wiring wiring) {
        Resources resources = new Resources();
        try {
            return start(settings, wiring, resources);
        } catch (RuntimeException e) {
            resources.close();
            throw e;
        }
    }

    private static RestApi start(Settings settings, Wiring wiring, Resources resources) {
        Topics topics = settings.topics();
        long maxBody = settings.maxBodyBytes();
        InstantSource clock = wiring.clock();
        Database db = wiring.db();
        EventOutbox outbox = wiring.outbox();
        AgentStore store = wiring.store();
        MeterRegistry meters = wiring.meters();
        // The first path: PostgreSQL delivers the change's NOTIFY when it commits, behind no audit traffic. The
        // same channel carries the revocations of people's grants, tokens and sessions (migration V38, D187).
        GrantRepository userGrants = wiring.userGrants();
        resources.add(AccessChanges.listen(db, store::invalidate, userGrants.revocations()::happened));
        EventFeed feed =
                resources.add(new EventFeed(wiring.kafkaBootstrap(), topics.events(), settings.instanceId() + "-feed"));
        // The second path, at no extra cost: the SSE hub's own reader of warden.events, which sees each change
        // once it is on the topic (behind no transaction of audit traffic: docs/events.md).
        feed.subscribe(event -> {
            if (event.type().changesAccess()) {
                store.invalidate();
            }
        });
        feed.meters().bindTo(meters);
        feed.start();
        Authenticator authenticator = wiring.authenticator();
        Issuer issuer = wiring.issuer();
        EventStream stream = resources.add(new EventStream(
                settings.stream()
                        .withTokenValidation(token -> authenticator
                                .authenticate(token)
                                .filter(p -> p.holds(STREAM_SCOPE) && p.validFor(issuer.canonical()))
                                .map(RestApi::subscriber)),
                new JdbcStreamEventStore(db, topics.events()),
                feed.startPosition()));
        feed.subscribe(wiring.tracing().traced("sse deliver", SpanKind.CONSUMER, FeedEvent::trace, stream::emit));
        WardenMeters.stream(meters, stream);
        DelegationService delegations =
                new DelegationService(store.delegations(), store.agents(), store.policies(), outbox, clock);
        OrganizationService organizations = new OrganizationService(new JdbcOrganizationRepository(db), outbox, clock);
        ApprovalService approvals = new ApprovalService(
                new JdbcApprovalRepository(db),
                store.agents()::find,
                approvalAdmins(organizations),
                wiring.approvalNotifier(),
                clock);
        AgentService agents = new AgentService(
                store.agents(),
                outbox,
                clock,
                List.of((agent, change, actor) -> store.invalidate(), (agent, change, actor) -> {
                    if (change == EventType.AGENT_REVOKED) {
                        delegations.revokeChainsFrom(agent.id(), actor);
                        approvals.cancelFor(agent.id());
                        userGrants.revokeAllOfClient(agent.id().value(), "agent revoked", clock.instant());
                    }
                }),
                organizations);
        QuotaClient quota = resources.add(new QuotaClient(
                wiring.kafkaBootstrap(),
                topics.quotaRequests(),
                topics.quotaReplies(),
                settings.instanceId(),
                Duration.ofSeconds(5)));
        DashboardView dashboardView = resources.add(new DashboardView(
                wiring.kafkaBootstrap(),
                topics.dashboardHourly(),
                topics.dashboardTotals(),
                settings.instanceId() + "-dashboard"));
        dashboardView.start();
        SpendView spendView = resources.add(
                new SpendView(wiring.kafkaBootstrap(), topics.budgetSpend(), settings.instanceId() + "-spend"));
        spendView.start();
        HealthCheck consumers = consumersHealth(Map.of(
                "event-feed",
                feed::health,
                "quota-replies",
                quota::health,
                "dashboard-view",
                dashboardView::health,
                "spend-view",
                spendView::health));
        AuditPublisher audit = new AuditPublisher(
                wiring.producer(),
                topics.audit(),
                wiring.auditCounters(),
                wiring.tracing().tracer());
        FunctionCounter.builder("warden.audit.publish.failures", audit, AuditPublisher::failureCount)
                .description("Audit entries Kafka did not acknowledge (each answered 503; no decision made).")
                .register(meters);
        AuthorizationService authorization = new AuthorizationService(
                store.policies(), quota, audit, clock, new DecisionMeters(meters), Conditions.standard(), approvals);
        JdbcAuditReader auditReader = new JdbcAuditReader(db, topics.audit());
        DashboardStats dashboard = new DashboardStats(dashboardView, spendView, store.agents(), clock);
        DeadLetterRoutes deadLetters = new DeadLetterRoutes(new DeadLetterRepository(db));
        ListCursor cursors = new ListCursor(ServerSecrets.get(db, "list-cursor"));
        List<WardenApi.Mount> mounts = new ArrayList<>(List.of(
                new WardenApi.Mount("/agents", new AgentRoutes(agents, cursors, clock, maxBody)),
                new WardenApi.Mount("/agents", new AgentClientRoutes(agents, wiring.agentClients(), issuer, clock)),
                new WardenApi.Mount(
                        "/agents", new CostRoutes(new CostService(store.agents(), db, outbox, clock), maxBody)),
                new WardenApi.Mount("/auth/tokens", new ApiTokenRoutes(store.apiTokens(), clock, maxBody)),
                new WardenApi.Mount("/delegations", new DelegationRoutes(delegations, cursors, maxBody)),
                new WardenApi.Mount("/authorize", new AuthorizeRoutes(authorization, wiring.clientIp(), maxBody)),
                new WardenApi.Mount("/approvals", new ApprovalRoutes(approvals, maxBody)),
                new WardenApi.Mount(
                        AuthzenConfiguration.BASE_PATH,
                        new AuthzenRoutes(authorization, agents, wiring.clientIp(), maxBody)),
                new WardenApi.Mount("/.well-known/authzen-configuration", new AuthzenConfiguration(issuer::url)),
                new WardenApi.Mount(
                        "/admin/v1/sinks", new SinkControlRoutes(db, wiring.auditSinks(), audit, clock, maxBody)),
                new WardenApi.Mount(
                        SharedSignalsRoutes.BASE,
                        new SharedSignalsRoutes(
                                wiring.signals().streams(),
                                issuer,
                                wiring.signals().signer(),
                                wiring.signals().guard(),
                                audit::publish,
                                clock,
                                SSF_LONG_POLL,
                                maxBody)),
                new WardenApi.Mount("/.well-known/ssf-configuration", new SsfConfiguration(issuer)),
                new WardenApi.Mount(
                        "/audit",
                        new AuditRoutes(
                                auditReader,
                                new AuditTopicEnd(wiring.admin(), topics.audit(), audit),
                                wiring.auditCounters(),
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
                                wiring.clientIp(),
                                settings.allowedOrigins(),
                                maxBody)),
                new WardenApi.Mount(ADMIN_PATH + "/dead-letters", deadLetters),
                new WardenApi.Mount("/admin/dead-letters", deadLetters.movedTo(ADMIN_PATH + "/dead-letters")),
                new WardenApi.Mount(
                        WardenApi.EVENT_STREAM_PATH,
                        rules -> rules.any("/", Access.selfAuthenticating(), stream::handleRequest)),
                new WardenApi.Mount("/", new OpenApiRoutes(wiring.grantTypes())),
                new WardenApi.Mount(ADMIN_PATH, new OrganizationRoutes(organizations, maxBody)),
                new WardenApi.Mount(
                        ADMIN_PATH, new OrganizationAdminRoutes(organizations, agents, delegations, cursors, clock))));
        if (settings.accountRoutes()) {
            mounts.add(new WardenApi.Mount("/account", new AccountRoutes(agents, delegations, clock)));
        }
        return new RestApi(
                mounts, consumers, resources, agents, auditReader, delegations, dashboard, organizations, approvals);
    }

    @Override
    public List<WardenApi.Mount> mounts() {
        return mounts;
    }

    /** {@code api-consumers}: UP while the event feed, the quota replies and the dashboard view are consuming. */
    @Override
    public List<HealthCheck> healthChecks() {
        return List.of(consumers);
    }

    @Override
    public void close() {
        resources.close();
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

    /** Stream visibility: the admin sees everything, a user their own events, an agent events about itself. */
    private static Subscriber subscriber(Principal principal) {
        return switch (AccessPolicy.eventVisibility(principal)) {
            case AccessPolicy.EventVisibility.All all -> Subscriber.administrator(principal.subjectId());
            case AccessPolicy.EventVisibility.OfUser user -> Subscriber.ofUser(principal.subjectId(), user.userId());
            case AccessPolicy.EventVisibility.OfAgent agent ->
                Subscriber.ofAgent(principal.subjectId(), agent.agentId());
        };
    }
}
