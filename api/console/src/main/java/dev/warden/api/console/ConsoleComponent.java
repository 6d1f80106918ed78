package dev.warden.api.console;

import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.oauth.authorize.Pages;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.rest.RestApi;
import dev.warden.api.users.UsersComponent;
import dev.warden.api.webhooks.Webhooks;
import java.time.InstantSource;
import java.util.List;

/** The operator console at {@code /console} (docs/console.md): its pages and its assets. */
public record ConsoleComponent(List<WardenApi.Mount> mounts) implements Component {

    public ConsoleComponent {
        mounts = List.copyOf(mounts);
    }

    /** The console over the REST surface's services, signed in with {@code users}' session cookie. */
    public static ConsoleComponent create(
            RestApi rest,
            Webhooks webhooks,
            UsersComponent users,
            Operations operations,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes) {
        ConsolePages pages = new ConsolePages();
        ConsoleSession session = new ConsoleSession(
                users.cookies(), users.administrators(), new Pages(clientIp), pages, maxBodyBytes, clock);
        return new ConsoleComponent(List.of(
                new WardenApi.Mount("/console/assets", new ConsoleAssets(), pages),
                new WardenApi.Mount("/console", new ConsoleRoutes(users.service(), clientIp, session, pages), pages),
                new WardenApi.Mount("/console", new DashboardPage(rest.dashboard(), session, pages, clock), pages),
                new WardenApi.Mount(
                        "/console",
                        new AgentPages(
                                rest.agents(),
                                rest.delegations(),
                                rest.audit(),
                                rest.dashboard(),
                                session,
                                pages,
                                clock),
                        pages),
                new WardenApi.Mount(
                        "/console",
                        new AuditPages(rest.audit(), rest.agents(), rest.delegations(), session, pages),
                        pages),
                new WardenApi.Mount(
                        "/console",
                        new DelegationPages(rest.delegations(), rest.agents(), session, pages, clock),
                        pages),
                new WardenApi.Mount(
                        "/console", new ApprovalPages(rest.approvals(), session, pages, maxBodyBytes), pages),
                new WardenApi.Mount("/console", new HealthPage(operations, session, pages), pages),
                new WardenApi.Mount(
                        "/console",
                        new OrganizationPages(rest.organizations(), rest.agents(), session, pages, clock, maxBodyBytes),
                        pages),
                new WardenApi.Mount("/console", new WebhookPages(webhooks, session, pages, maxBodyBytes), pages)));
    }
}
