package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.access.OrgAuthority;
import dev.warden.api.agents.AgentService;
import dev.warden.api.console.ConsoleRows.AgentRow;
import dev.warden.api.console.ConsoleRows.MemberRow;
import dev.warden.api.console.ConsoleRows.MembershipRow;
import dev.warden.api.console.ConsoleRows.RoleRow;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.organizations.Organization;
import dev.warden.api.organizations.OrganizationService;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The organizations pages: the organizations the person belongs to, with their role in each, one organization's
 * agents (for those whose role reads them), and its members and roles, where a member who may administer members gives a member another role (the
 * same rules as {@code PATCH /admin/v1/organizations/{orgID}/members/{userID}}: who may give which role, and an
 * organization keeps an owner). Through {@link OrganizationService}, so through the one access policy.
 */
final class OrganizationPages implements DeclaredService {
    /** The organization's agents shown, newest first. */
    static final int AGENTS = 200;

    private final OrganizationService organizations;
    private final AgentService agents;
    private final ConsoleSession session;
    private final ConsolePages pages;
    private final long maxBodyBytes;
    private final InstantSource clock;

    OrganizationPages(
            OrganizationService organizations,
            AgentService agents,
            ConsoleSession session,
            ConsolePages pages,
            InstantSource clock,
            long maxBodyBytes) {
        this.organizations = organizations;
        this.agents = agents;
        this.clock = clock;
        this.session = session;
        this.pages = pages;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/organizations", Access.open(), this::list)
                .get("/organizations/{orgID}", Access.open(), this::organization)
                .get("/organizations/{orgID}/agents", Access.open(), this::organizationAgents)
                .post("/organizations/{orgID}/members/{userID}/role", Access.open(), this::changeRole);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        Map<String, Object> params = session.params(req, res, user.get(), "organizations");
        // The person's own memberships, in the administrator view too.
        params.put(
                "memberships",
                organizations.mine(user.get().user()).stream()
                        .map(MembershipRow::of)
                        .toList());
        pages.send(res, Status.OK_200, "console/organizations.jte", params);
    }

    /** Members and roles; a 403 page for an organization the person is not in (the administrator sees any). */
    private void organization(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        String id = organizationId(req);
        Organization organization = organizations.get(user.get().principal(), id);
        Map<String, Object> params = session.params(req, res, user.get(), "organizations");
        params.put("organization", MembershipRow.of(organization, ""));
        params.put(
                "members",
                organizations.members(user.get().principal(), id).stream()
                        .map(MemberRow::of)
                        .toList());
        List<RoleRow> roles = organizations.roles(user.get().principal(), id).stream()
                .map(RoleRow::of)
                .toList();
        params.put("roles", roles);
        params.put("manage", may(user.get(), id, "members:admin"));
        params.put("agentsVisible", may(user.get(), id, "agents:read"));
        pages.send(res, Status.OK_200, "console/organization.jte", params);
    }

    /**
     * The organization's agents, for a member whose role reads them ({@code agents:read}: owners and administrators
     * by default) and the administrator; newest first, at most {@link #AGENTS}.
     */
    private void organizationAgents(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        String id = organizationId(req);
        OrgAuthority authority = organizations.authority(user.get().principal(), id, "agents:read");
        Organization organization = organizations.get(user.get().principal(), id);
        Instant now = clock.instant();
        Map<String, Object> params = session.params(req, res, user.get(), "organizations");
        params.put("organization", MembershipRow.of(organization, ""));
        params.put(
                "agents",
                agents
                        .pageInOrganization(
                                authority,
                                new AgentService.Query(Optional.empty(), Optional.empty(), Optional.empty()),
                                Optional.empty(),
                                AGENTS)
                        .stream()
                        .map(a -> AgentRow.of(a, now))
                        .toList());
        pages.send(res, Status.OK_200, "console/organizationAgents.jte", params);
    }

    /** Whether the person may use {@code permission} in the organization (for what the page offers). */
    private boolean may(ConsoleSession.Operator operator, String organizationId, String permission) {
        try {
            organizations.authority(operator.principal(), organizationId, permission);
            return true;
        } catch (ForbiddenException e) {
            return false;
        }
    }

    private void changeRole(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        Optional<ConsoleSession.Operator> user = session.formFrom(req, res, form);
        if (user.isEmpty()) {
            return;
        }
        String id = organizationId(req);
        UserId member = Params.path(req, "userID", UserId::of);
        organizations.changeRole(user.get().principal(), id, member, form.getOrDefault("role", ""));
        ConsolePages.redirect(res, Status.SEE_OTHER_303, "/console/organizations/" + id);
    }

    private static String organizationId(ServerRequest req) {
        return Params.path(req, "orgID", value -> Ids.require("orgID", value));
    }
}
